package dev.zaro.arrow.codec;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.metadata.CodecSpec;
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

  /** Builds the codec {@code spec} names for chunks of {@code input}. */
  public Codec create(CodecSpec spec, ChunkSpec input) {
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
}
