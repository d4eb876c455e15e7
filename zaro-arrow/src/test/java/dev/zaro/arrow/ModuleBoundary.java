package dev.zaro.arrow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;

/**
 * The module boundary for zaro's modules that have no {@code module-info} of their own (a
 * dependency such as gRPC or Spark makes one impractical) and so run and compile on the class path,
 * where no descriptor is enforced: an ArchUnit rule that a module's main classes use only the
 * packages the other zaro modules' descriptors export, to everyone or to that module by name (a
 * qualified export to zaro's own plugin; docs/ARCHITECTURE.md, "Modules"). The descriptors are the
 * compiled {@code module-info.class} files on the class path, so the rule is the one the JVM would
 * enforce on the module path.
 */
public final class ModuleBoundary {
  private ModuleBoundary() {}

  /**
   * Fails when a main class of {@code module} (the classes of the package of that name and its
   * sub-packages) depends on a class of another zaro module's package not exported to it.
   */
  public static void check(String module) {
    List<ModuleDescriptor> zaro = descriptors();
    if (zaro.stream().noneMatch(d -> d.name().equals("dev.zaro.arrow"))) {
      throw new AssertionError("zaro-arrow's module descriptor is not on the class path");
    }
    JavaClasses classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages(module);
    if (classes.isEmpty()) {
      throw new AssertionError("no main classes in " + module);
    }
    noClasses()
        .should()
        .dependOnClassesThat(
            new DescribedPredicate<JavaClass>(
                "are in a package of another zaro module not exported to " + module) {
              @Override
              public boolean test(JavaClass c) {
                return !visible(zaro, module, c.getPackageName());
              }
            })
        .check(classes);
  }

  /**
   * Whether {@code module} may use package {@code pkg}: its own, one of no zaro module with a
   * descriptor, or one such a module exports to all or to {@code module}.
   */
  public static boolean visible(List<ModuleDescriptor> zaro, String module, String pkg) {
    Optional<ModuleDescriptor> owner =
        zaro.stream()
            .filter(d -> pkg.equals(d.name()) || pkg.startsWith(d.name() + "."))
            .max((a, b) -> Integer.compare(a.name().length(), b.name().length()));
    if (owner.isEmpty() || owner.get().name().equals(module)) {
      return true;
    }
    return owner.get().exports().stream()
        .anyMatch(
            e -> e.source().equals(pkg) && (!e.isQualified() || e.targets().contains(module)));
  }

  /** The descriptors of zaro's modules on the class path. */
  public static List<ModuleDescriptor> descriptors() {
    List<ModuleDescriptor> out = new ArrayList<>();
    try {
      Enumeration<URL> all =
          ModuleBoundary.class.getClassLoader().getResources("module-info.class");
      while (all.hasMoreElements()) {
        try (InputStream in = all.nextElement().openStream()) {
          ModuleDescriptor d = ModuleDescriptor.read(in);
          if (d.name().startsWith("dev.zaro.")) {
            out.add(d);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
