package dev.zaro.trino;

import dev.zaro.arrow.ModuleBoundary;
import org.junit.jupiter.api.Test;

/** This module has no module-info: its main classes use only what zaro-arrow exports to it. */
class ModuleBoundaryTest {
  @Test
  void usesOnlyWhatOtherZaroModulesExportToIt() {
    ModuleBoundary.check("dev.zaro.trino");
  }
}
