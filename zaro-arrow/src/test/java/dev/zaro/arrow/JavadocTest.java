package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every public or protected member of a package module-info exports (types, constructors, methods,
 * fields, enum constants) has a Javadoc comment; overrides inherit theirs. The sources are parsed
 * with the JDK's compiler API (no attribution), so the check runs in {@code mvn test}/{@code
 * verify} without a Javadoc run. Unlike javac's {@code -Xdoclint:missing}, it does not also ask for
 * an {@code @param} per parameter.
 */
class JavadocTest {
  private static final Path SOURCES = Path.of("src", "main", "java");

  private static Set<String> exportedPackages() throws Exception {
    Path classes = Path.of(Zaro.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ModuleFinder.of(classes)
        .find("dev.zaro.arrow")
        .orElseThrow()
        .descriptor()
        .exports()
        .stream()
        .map(ModuleDescriptor.Exports::source)
        .collect(Collectors.toSet());
  }

  /** Public or protected members of the exported packages' source that have no doc comment. */
  static List<String> undocumented(Path sources, Set<String> packages) throws IOException {
    List<Path> files = new ArrayList<>();
    for (String pkg : packages) {
      try (Stream<Path> list = Files.list(sources.resolve(pkg.replace('.', '/')))) {
        list.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
      }
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    List<String> missing = new ArrayList<>();
    try (StandardJavaFileManager fm = compiler.getStandardFileManager(null, null, null)) {
      Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromPaths(files);
      JavacTask task =
          (JavacTask) compiler.getTask(null, fm, d -> {}, List.of("-proc:none"), null, units);
      DocTrees docs = DocTrees.instance(task);
      for (CompilationUnitTree unit : task.parse()) {
        new Scanner(docs, unit, missing).scan(unit, null);
      }
    }
    missing.sort(null);
    return missing;
  }

  private static final class Scanner extends TreePathScanner<Void, Void> {
    private final DocTrees docs;
    private final CompilationUnitTree unit;
    private final List<String> missing;

    Scanner(DocTrees docs, CompilationUnitTree unit, List<String> missing) {
      this.docs = docs;
      this.unit = unit;
      this.missing = missing;
    }

    /** The innermost enclosing type of the current path, or null for a top-level one. */
    private ClassTree enclosingType() {
      for (TreePath p = getCurrentPath().getParentPath(); p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof ClassTree c) {
          return c;
        }
      }
      return null;
    }

    /** Whether the member at the current path can be used outside the package. */
    private boolean visible(ModifiersTree mods) {
      Set<Modifier> flags = mods.getFlags();
      if (flags.contains(Modifier.PRIVATE)) {
        return false;
      }
      ClassTree owner = enclosingType();
      boolean inInterface =
          owner != null
              && (owner.getKind() == Tree.Kind.INTERFACE
                  || owner.getKind() == Tree.Kind.ANNOTATION_TYPE);
      if (!(flags.contains(Modifier.PUBLIC) || flags.contains(Modifier.PROTECTED) || inInterface)) {
        return false;
      }
      // every enclosing type must be visible too
      for (TreePath p = getCurrentPath().getParentPath(); p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof ClassTree c && !visibleType(p, c)) {
          return false;
        }
      }
      return true;
    }

    private static boolean visibleType(TreePath path, ClassTree type) {
      Set<Modifier> flags = type.getModifiers().getFlags();
      if (flags.contains(Modifier.PRIVATE)) {
        return false;
      }
      if (flags.contains(Modifier.PUBLIC) || flags.contains(Modifier.PROTECTED)) {
        return true;
      }
      Tree parent = path.getParentPath().getLeaf();
      return parent instanceof ClassTree c
          && (c.getKind() == Tree.Kind.INTERFACE || c.getKind() == Tree.Kind.ANNOTATION_TYPE);
    }

    private void check(String what) {
      if (docs.getDocComment(getCurrentPath()) == null) {
        long line =
            unit.getLineMap()
                .getLineNumber(
                    docs.getSourcePositions().getStartPosition(unit, getCurrentPath().getLeaf()));
        Path file = Path.of(unit.getSourceFile().toUri());
        missing.add(
            file.getParent().getFileName() + "/" + file.getFileName() + ":" + line + " " + what);
      }
    }

    @Override
    public Void visitClass(ClassTree tree, Void unused) {
      if (visibleType(getCurrentPath(), tree)
          && (enclosingType() == null || visible(tree.getModifiers()))) {
        check(tree.getSimpleName().toString());
      }
      return super.visitClass(tree, null);
    }

    @Override
    public Void visitMethod(MethodTree tree, Void unused) {
      boolean override =
          tree.getModifiers().getAnnotations().stream()
              .anyMatch(a -> a.getAnnotationType().toString().equals("Override"));
      if (!override && visible(tree.getModifiers())) {
        check(tree.getName() + "()");
      }
      return null; // no members inside a method body
    }

    @Override
    public Void visitVariable(VariableTree tree, Void unused) {
      if (getCurrentPath().getParentPath().getLeaf() instanceof ClassTree
          && visible(tree.getModifiers())) {
        check(tree.getName().toString());
      }
      return null;
    }
  }

  @Test
  void everyPublicMemberOfAnExportedPackageHasJavadoc() throws Exception {
    List<String> missing = undocumented(SOURCES, exportedPackages());
    assertEquals(List.of(), missing, missing.size() + " public members without Javadoc");
  }
}
