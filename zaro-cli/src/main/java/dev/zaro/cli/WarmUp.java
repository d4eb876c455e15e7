package dev.zaro.cli;

import dev.zaro.arrow.codec.CodecRegistry;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.memory.HugePages;

/**
 * The command line's start-up warm-up: static state that a new JVM builds on first use, built ahead
 * on a spare thread ({@link Main#startAhead}) while picocli parses the arguments on the main
 * thread. Each step is optional (the command builds what it needs itself when it gets there first);
 * later calls return at once. Safe to call from any thread. A start-up concern of this process, not
 * of the library, whose users open hierarchies when they are ready.
 */
final class WarmUp {
  private WarmUp() {}

  /**
   * What opening a hierarchy builds on first use: zaro's JSON parser (Jackson's mapper, about 40 ms
   * before it is compiled) and the registry of built-in codecs.
   */
  static void opening() {
    Json.nodeFactory();
    CodecRegistry.defaults();
  }

  /**
   * What a first read of chunks into Arrow builds on first use beyond {@link #opening}: the native
   * binding through which large buffers are advised huge pages (JNA's start, about 15 ms).
   */
  static void reads() {
    HugePages.available();
  }
}
