package dev.zaro.arrow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layer rule of docs/ARCHITECTURE.md, checked on zaro-arrow's main classes (their bytecode, so
 * fully-qualified names written inline count as much as imports): a package only uses the packages
 * below it, no two packages depend on each other, and the codec API names no implementation.
 */
class ArchitectureTest {
  private static final String ROOT = "dev.zaro.arrow";

  /** The layers, lowest first: each may use only the layers before it (and itself). */
  private static final List<String> LAYERS =
      List.of(
          "error",
          "exec",
          "memory",
          "json",
          "store",
          "metadata",
          "codec",
          "plan",
          "read",
          "vector",
          "api");

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages(ROOT);
  }

  private static String packages(String layer) {
    return layer.equals("api") ? ROOT : ROOT + "." + layer + "..";
  }

  @Test
  void packagesOnlyUseTheLayersBelowThem() {
    LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (String layer : LAYERS) {
      rule = rule.layer(layer).definedBy(packages(layer));
    }
    for (int i = 0; i < LAYERS.size(); i++) {
      List<String> above = LAYERS.subList(i + 1, LAYERS.size());
      rule =
          above.isEmpty()
              ? rule.whereLayer(LAYERS.get(i)).mayNotBeAccessedByAnyLayer()
              : rule.whereLayer(LAYERS.get(i))
                  .mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
    }
    rule.check(classes);
  }

  /**
   * Every package is a slice of its own, sub-packages included, except that a package's {@code
   * internal} sub-package (its unexported half, such as {@code read.internal}, which exists only
   * because Java has no access between packages short of public) belongs to the package itself.
   */
  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
          String pkg = javaClass.getPackageName();
          if (!pkg.startsWith(ROOT)) {
            return SliceIdentifier.ignore();
          }
          return SliceIdentifier.of(
              pkg.endsWith(".internal") ? pkg.substring(0, pkg.length() - 9) : pkg);
        }

        @Override
        public String getDescription() {
          return "packages of " + ROOT + " (an internal sub-package counted with its parent)";
        }
      };

  @Test
  void packagesAreFreeOfCycles() {
    slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(classes);
  }

  @Test
  void theCodecApiNamesNoImplementation() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".codec")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(ROOT + ".codec.*..")
        .check(classes);
  }
}
