package dev.zaro.arrow.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.internal.JsonDocument;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds codecs by metadata name. {@link #defaults()} holds every built-in codec; programs can
 * register more on their own registry.
 */
public final class CodecRegistry {
  private static final CodecRegistry DEFAULTS = builtIns();

  private final Map<String, CodecFactory> factories = new ConcurrentHashMap<>();

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
   */
  public static CodecRegistry builtIns() {
    CodecRegistry r = new CodecRegistry();
    for (CodecProvider provider :
        ServiceLoader.load(CodecProvider.class, CodecRegistry.class.getClassLoader())) {
      provider.register(r);
    }
    return r;
  }

  /** Registers (or replaces) the codec named {@code name}. */
  public CodecRegistry register(String name, CodecFactory factory) {
    factories.put(name, factory);
    return this;
  }

  /** The names of every registered codec, sorted. */
  public SortedSet<String> names() {
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
