package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link ModuleBoundary} lets another zaro module use of zaro-arrow, from its descriptor. */
class ModuleBoundaryTest {
  private final List<ModuleDescriptor> zaro = ModuleBoundary.descriptors();

  @Test
  void theApiIsVisibleToAll() {
    assertTrue(ModuleBoundary.visible(zaro, "dev.zaro.spark", "dev.zaro.arrow.store"));
    assertTrue(ModuleBoundary.visible(zaro, "dev.zaro.spark", "dev.zaro.arrow.metadata"));
  }

  @Test
  void internalsOnlyToTheModulesNamedInAQualifiedExport() {
    assertTrue(ModuleBoundary.visible(zaro, "dev.zaro.flight", "dev.zaro.arrow.json"));
    assertFalse(ModuleBoundary.visible(zaro, "dev.zaro.spark", "dev.zaro.arrow.json"));
    assertFalse(
        ModuleBoundary.visible(zaro, "dev.zaro.flight", "dev.zaro.arrow.metadata.internal"));
    assertFalse(ModuleBoundary.visible(zaro, "dev.zaro.cli", "dev.zaro.arrow.codec.blosc"));
  }

  @Test
  void packagesOfNoDescribedModuleAreNotChecked() {
    assertTrue(ModuleBoundary.visible(zaro, "dev.zaro.cli", "dev.zaro.flight"));
    assertTrue(ModuleBoundary.visible(zaro, "dev.zaro.cli", "org.apache.arrow.vector"));
  }
}
