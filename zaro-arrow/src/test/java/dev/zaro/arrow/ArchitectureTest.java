package dev.zaro.arrow;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import dev.zaro.arrow.read.DimensionColumn;
import dev.zaro.arrow.read.TableReader;
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
    // the one known exception, to remove when these two move into vector (after the CF work)
    rule.ignoreDependency(
            belongToAnyOf(TableReader.class, DimensionColumn.class),
            resideInAPackage(ROOT + ".vector.."))
        .check(classes);
  }

  @Test
  void packagesAreFreeOfCycles() {
    slices()
        .matching(ROOT + ".(**)")
        .should()
        .beFreeOfCycles()
        .ignoreDependency(
            belongToAnyOf(TableReader.class, DimensionColumn.class),
            resideInAPackage(ROOT + ".vector.."))
        .check(classes);
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
