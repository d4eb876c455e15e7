package dev.zaro.arrow.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds codecs by metadata name. {@link #defaults()} holds every built-in codec; programs can
 * register more on their own registry.
 */
public final class CodecRegistry {
  private static final String SERVICES = "META-INF/services/" + CodecProvider.class.getName();

  private static final CodecRegistry DEFAULTS = builtIns();

  private final Map<String, CodecFactory> factories = new ConcurrentHashMap<>();

  /**
   * Whether the other {@link CodecProvider}s on the class path are still to be looked for (a
   * registry from {@link #builtIns()}, until a name is first missing or the names are listed).
   */
  private volatile boolean discover;

  /** The class names of the built-in providers registered already, which discovery skips. */
  private final Set<String> builtIn = new HashSet<>();

  /** An empty registry; {@link #builtIns()} gives one holding the built-in codecs. */
  public CodecRegistry() {}

  /** The registry of built-in codecs. */
  public static CodecRegistry defaults() {
    return DEFAULTS;
  }

  /**
   * A new registry holding the built-in codecs, to which more can be added: every {@link
   * CodecProvider} that {@link ServiceLoader} finds beside this class (the built-ins and any jar on
   * the class or module path that provides codecs).
   *
   * <p>The built-ins are those named in the services file of the jar (or directory) this class
   * comes from, read from there; the other providers are looked for the first time a codec name is
   * not found (or {@link #names()} is asked), and add only names not registered yet. A service
   * lookup opens every jar of the class path, which for the command line's 111 jars was about 0.1
   * CPU s of each start (benchmarks/README.md, "Start-up").
   */
  public static CodecRegistry builtIns() {
    CodecRegistry r = new CodecRegistry();
    List<CodecProvider> own = ownProviders();
    if (own.isEmpty()) {
      ServiceLoader.load(CodecProvider.class, CodecRegistry.class.getClassLoader())
          .forEach(provider -> provider.register(r));
    } else {
      for (CodecProvider provider : own) {
        provider.register(r);
        r.builtIn.add(provider.getClass().getName());
      }
      r.discover = true;
    }
    return r;
  }

  /**
   * The built-in providers: those the services file beside this class names, instantiated; empty
   * when the file cannot be read from there (then the caller asks {@link ServiceLoader}).
   */
  private static List<CodecProvider> ownProviders() {
    ClassLoader loader = CodecRegistry.class.getClassLoader();
    List<CodecProvider> providers = new ArrayList<>();
    try {
      CodeSource source = CodecRegistry.class.getProtectionDomain().getCodeSource();
      if (source == null || source.getLocation() == null) {
        return List.of();
      }
      URI location = source.getLocation().toURI();
      URLConnection connection =
          (location.getPath().endsWith("/")
                  ? location.resolve(SERVICES)
                  : URI.create("jar:" + location + "!/" + SERVICES))
              .toURL()
              .openConnection();
      connection.setUseCaches(false);
      String text;
      try (InputStream in = connection.getInputStream()) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      for (String line : (Iterable<String>) text.lines()::iterator) {
        String name = line.replaceFirst("#.*", "").strip();
        if (!name.isEmpty()) {
          providers.add(
              Class.forName(name, true, loader)
                  .asSubclass(CodecProvider.class)
                  .getDeclaredConstructor()
                  .newInstance());
        }
      }
      return providers;
    } catch (IOException | URISyntaxException | ReflectiveOperationException | RuntimeException e) {
      return List.of();
    }
  }

  /**
   * Registers the codecs of the {@link CodecProvider}s {@link ServiceLoader} finds other than the
   * built-ins, for names not registered yet; once.
   */
  private void discover() {
    if (!discover) {
      return;
    }
    synchronized (this) {
      if (!discover) {
        return;
      }
      CodecRegistry found = new CodecRegistry();
      for (CodecProvider provider :
          ServiceLoader.load(CodecProvider.class, CodecRegistry.class.getClassLoader())) {
        if (!builtIn.contains(provider.getClass().getName())) {
          provider.register(found);
        }
      }
      found.factories.forEach(factories::putIfAbsent);
      discover = false;
    }
  }

  /** Registers (or replaces) the codec named {@code name}. */
  public CodecRegistry register(String name, CodecFactory factory) {
    factories.put(name, factory);
    return this;
  }

  /** The names of every registered codec, sorted. */
  public SortedSet<String> names() {
    discover();
    return new TreeSet<>(factories.keySet());
  }

  /**
   * Builds the codec {@code spec} names for chunks of {@code input}.
   *
   * <p>A {@code numcodecs.<id>} configuration may name its own codec in an {@code "id"} field, as
   * zarr-python 3.0.x with numcodecs 0.14 to 0.15.0 wrote it ({@code {"name": "numcodecs.zlib",
   * "configuration": {"id": "zlib", "level": 1}}}); the field is dropped when it names the same
   * codec and refused when it names another.
   */
  public Codec create(CodecSpec spec, ChunkSpec input) {
    spec = withoutOwnId(spec);
    CodecFactory factory = factories.get(spec.name());
    if (factory == null) {
      discover();
      factory = factories.get(spec.name());
    }
    if (factory == null) {
      throw new CodecException(
          ErrorKind.UNSUPPORTED,
          "codec '"
              + spec.name()
              + "' is not supported (zaro reads: "
              + String.join(", ", names())
              + ")");
    }
    return factory.create(spec, input, this);
  }

  private static final String NUMCODECS = "numcodecs.";

  private static CodecSpec withoutOwnId(CodecSpec spec) {
    if (!spec.name().startsWith(NUMCODECS) || !spec.configuration().has("id")) {
      return spec;
    }
    ObjectNode config = (ObjectNode) spec.configuration();
    JsonNode id = config.remove("id");
    String own = spec.name().substring(NUMCODECS.length());
    if (!id.isTextual() || !id.textValue().equals(own)) {
      throw new CodecException(
          "codec "
              + spec.name()
              + ": configuration field 'id' is "
              + JsonDocument.describe(id)
              + ", which names another codec than "
              + spec.name()
              + " (expected \""
              + own
              + "\" or no 'id')");
    }
    return new CodecSpec(spec.name(), config);
  }
}
