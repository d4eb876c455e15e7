package dev.zaro.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.CodecProvider;
import dev.zaro.arrow.store.StoreProvider;
import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The compiled {@code module-info} of zaro-arrow: it exports the API packages only (the internals
 * at most to zaro's own modules, by qualified exports), declares the {@link StoreProvider} service
 * it loads, and resolves against the dependency jars this build actually uses (so every {@code
 * requires} names a real module).
 */
class ModuleDescriptorTest {
  private static final List<String> TEST_TOOLS =
      List.of(
          "surefire",
          "/org/junit/",
          "/org/opentest4j/",
          "/org/apiguardian/",
          "/com/code-intelligence/",
          "/org/jetbrains/",
          "/io/airlift/");

  private static Path classes() throws Exception {
    return Path.of(Zaro.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static ModuleDescriptor descriptor() throws Exception {
    return ModuleFinder.of(classes()).find("dev.zaro.arrow").orElseThrow().descriptor();
  }

  @Test
  void exportsTheApiAndNotTheInternals() throws Exception {
    ModuleDescriptor d = descriptor();
    Set<String> exported =
        d.exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(
        new TreeSet<>(
            Set.of(
                "dev.zaro.arrow",
                "dev.zaro.arrow.vector",
                "dev.zaro.arrow.codec",
                "dev.zaro.arrow.error",
                "dev.zaro.arrow.metadata",
                "dev.zaro.arrow.plan",
                "dev.zaro.arrow.read",
                "dev.zaro.arrow.store")),
        exported);
    Set<String> internal = new TreeSet<>(d.packages());
    internal.removeAll(exported);
    assertEquals(
        new TreeSet<>(
            Set.of(
                "dev.zaro.arrow.exec",
                "dev.zaro.arrow.json",
                "dev.zaro.arrow.memory",
                "dev.zaro.arrow.read.internal",
                "dev.zaro.arrow.codec.internal",
                "dev.zaro.arrow.metadata.internal",
                "dev.zaro.arrow.store.internal",
                "dev.zaro.arrow.vector.internal",
                "dev.zaro.arrow.codec.blosc",
                "dev.zaro.arrow.codec.core",
                "dev.zaro.arrow.codec.lz",
                "dev.zaro.arrow.codec.numcodecs",
                "dev.zaro.arrow.codec.zfp",
                "dev.zaro.arrow.codec.ext",
                "dev.zaro.arrow.store.icechunk")),
        internal);
    // the rest only to zaro's own modules (docs/ARCHITECTURE.md, "Modules")
    for (ModuleDescriptor.Exports e : d.exports()) {
      if (e.isQualified()) {
        assertTrue(internal.contains(e.source()), "an internal package: " + e);
        assertTrue(
            e.targets().stream().allMatch(t -> t.startsWith("dev.zaro.")),
            "exported to zaro's modules only: " + e);
      }
    }
    assertEquals(Set.of(StoreProvider.class.getName(), CodecProvider.class.getName()), d.uses());
    // built-in stores and codecs register like anyone else's
    assertEquals(
        Set.of(StoreProvider.class.getName(), CodecProvider.class.getName()),
        d.provides().stream().map(ModuleDescriptor.Provides::service).collect(Collectors.toSet()));
    assertTrue(d.opens().isEmpty() && !d.isOpen(), "nothing is opened for reflection");
  }

  @Test
  void resolvesAgainstTheDependencyJarsOnTheModulePath() throws Exception {
    Path classes = classes();
    Path[] modulePath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .filter(p -> p.toString().endsWith(".jar"))
            // the test tools' jars (automatic modules that clash) are not the library's
            .filter(p -> TEST_TOOLS.stream().noneMatch(t -> p.toString().contains(t)))
            .toArray(Path[]::new);
    ModuleFinder finder =
        ModuleFinder.compose(ModuleFinder.of(classes), ModuleFinder.of(modulePath));
    Configuration config =
        ModuleLayer.boot()
            .configuration()
            .resolve(finder, ModuleFinder.of(), Set.of("dev.zaro.arrow"));
    ResolvedModule zaro = config.findModule("dev.zaro.arrow").orElseThrow();
    Set<String> reads = zaro.reads().stream().map(ResolvedModule::name).collect(Collectors.toSet());
    for (String required :
        List.of(
            "org.apache.arrow.memory.core",
            "org.apache.arrow.vector",
            "org.apache.arrow.c",
            "com.fasterxml.jackson.databind",
            "com.github.luben.zstd_jni",
            "com.sun.jna",
            "org.apache.commons.compress",
            "org.tukaani.xz")) {
      assertTrue(reads.contains(required), "dev.zaro.arrow reads " + required + ": " + reads);
    }
    ModuleLayer layer =
        ModuleLayer.boot().defineModulesWithOneLoader(config, ClassLoader.getPlatformClassLoader());
    Class<?> zaroClass = layer.findLoader("dev.zaro.arrow").loadClass(Zaro.class.getName());
    assertEquals("dev.zaro.arrow", zaroClass.getModule().getName());
  }
}
