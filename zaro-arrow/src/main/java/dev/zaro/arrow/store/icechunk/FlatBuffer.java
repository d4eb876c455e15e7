package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A bounds-checked reader of one FlatBuffers buffer (the binary layout of
 * https://flatbuffers.dev/internals/), enough for Icechunk's schemas: tables found through their
 * vtables, scalar fields, inline structs, strings, byte vectors and vectors of tables or structs.
 * Positions are {@code int} offsets into the buffer; a table is the position of its start. Every
 * offset is checked against the buffer, so a corrupt file gives a {@link StoreException} naming the
 * file, never an exception from deep inside or a read outside the buffer.
 */
final class FlatBuffer {
  private final byte[] b;
  private final String file;

  /**
   * @param bytes the whole FlatBuffers buffer (not copied)
   * @param file the file it came from, for messages
   */
  FlatBuffer(byte[] bytes, String file) {
    this.b = bytes;
    this.file = file;
  }

  StoreException corrupt(String what) {
    return new StoreException(ErrorKind.CORRUPT, "corrupt Icechunk file '" + file + "': " + what);
  }

  private void check(long pos, long size, String what) {
    if (pos < 0 || size < 0 || pos + size > b.length) {
      throw corrupt(
          what
              + " lies outside the "
              + b.length
              + "-byte buffer (at "
              + pos
              + ", "
              + size
              + " bytes)");
    }
  }

  int u8(int pos) {
    check(pos, 1, "a byte");
    return b[pos] & 0xff;
  }

  int u16(int pos) {
    check(pos, 2, "a 16-bit value");
    return (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8;
  }

  int i32(int pos) {
    check(pos, 4, "a 32-bit value");
    return (b[pos] & 0xff)
        | (b[pos + 1] & 0xff) << 8
        | (b[pos + 2] & 0xff) << 16
        | (b[pos + 3] & 0xff) << 24;
  }

  long u32(int pos) {
    return i32(pos) & 0xffffffffL;
  }

  long u64(int pos) {
    check(pos, 8, "a 64-bit value");
    return u32(pos) | u32(pos + 4) << 32;
  }

  /** {@code n} bytes at {@code pos}, copied. */
  byte[] bytes(int pos, int n) {
    check(pos, n, "a byte string");
    return Arrays.copyOfRange(b, pos, pos + n);
  }

  /** Compares {@code key} with the bytes at {@code pos} as unsigned bytes (lexicographic). */
  int compare(int pos, byte[] key) {
    check(pos, key.length, "an id");
    return Arrays.compareUnsigned(b, pos, pos + key.length, key, 0, key.length);
  }

  /** Follows the unsigned offset stored at {@code pos}. */
  private int follow(int pos, String what) {
    long target = pos + u32(pos);
    if (target >= b.length) {
      throw corrupt(what + " points past the end of the buffer");
    }
    return (int) target;
  }

  /** The root table. */
  int root(String type) {
    if (b.length < 8) {
      throw corrupt("the " + type + " buffer holds only " + b.length + " bytes");
    }
    return follow(0, "the root " + type);
  }

  /** Where field {@code index} of the table at {@code table} lies, or -1 if it is absent. */
  int field(int table, int index) {
    int vtable = table - i32(table);
    int vtableSize = u16(vtable);
    if (vtableSize < 4 || (vtableSize & 1) != 0) {
      throw corrupt("a vtable has the size " + vtableSize);
    }
    int slot = 4 + 2 * index;
    if (slot >= vtableSize) {
      return -1;
    }
    int off = u16(vtable + slot);
    if (off == 0) {
      return -1;
    }
    if (off >= u16(vtable + 2)) {
      throw corrupt("field " + index + " lies outside its table");
    }
    return table + off;
  }

  /** A field that must be present: its position. */
  int required(int table, int index, String name) {
    int pos = field(table, index);
    if (pos < 0) {
      throw corrupt("the required field '" + name + "' is missing");
    }
    return pos;
  }

  int u8Field(int table, int index, int dflt) {
    int pos = field(table, index);
    return pos < 0 ? dflt : u8(pos);
  }

  long u32Field(int table, int index, long dflt) {
    int pos = field(table, index);
    return pos < 0 ? dflt : u32(pos);
  }

  int i32Field(int table, int index, int dflt) {
    int pos = field(table, index);
    return pos < 0 ? dflt : i32(pos);
  }

  long u64Field(int table, int index, long dflt) {
    int pos = field(table, index);
    return pos < 0 ? dflt : u64(pos);
  }

  /** The table a field points at, or -1 if the field is absent. */
  int table(int table, int index, String name) {
    int pos = field(table, index);
    return pos < 0 ? -1 : follow(pos, "the table '" + name + "'");
  }

  /** The vector a field points at (its length word), or -1 if the field is absent. */
  int vector(int table, int index, String name) {
    int pos = field(table, index);
    if (pos < 0) {
      return -1;
    }
    int vec = follow(pos, "the vector '" + name + "'");
    check(vec, 4, "the length of '" + name + "'");
    return vec;
  }

  /**
   * The number of elements of the vector at {@code vec}, each {@code elementSize} bytes, checked.
   */
  int length(int vec, int elementSize, String name) {
    long n = u32(vec);
    if (n * elementSize > b.length - vec - 4L) {
      throw corrupt(
          "the vector '" + name + "' claims " + n + " elements, more than the buffer holds");
    }
    return (int) n;
  }

  /** Element {@code i} of a vector of tables. */
  int tableAt(int vec, int i, String name) {
    return follow(vec + 4 + 4 * i, "an element of '" + name + "'");
  }

  /** Element {@code i} of a vector of strings. */
  String stringAt(int vec, int i, String name) {
    int s = follow(vec + 4 + 4 * i, "an element of '" + name + "'");
    check(s, 4, "a string of '" + name + "'");
    return utf8(bytes(s + 4, length(s, 1, name)), name);
  }

  /** The bytes of a {@code [ubyte]} field, or null if absent. */
  byte[] byteVector(int table, int index, String name) {
    int vec = vector(table, index, name);
    return vec < 0 ? null : bytes(vec + 4, length(vec, 1, name));
  }

  /** A UTF-8 string field, or null if absent. */
  String string(int table, int index, String name) {
    byte[] utf8 = byteVector(table, index, name);
    return utf8 == null ? null : utf8(utf8, name);
  }

  private String utf8(byte[] utf8, String name) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(utf8)).toString();
    } catch (CharacterCodingException e) {
      throw corrupt("the string '" + name + "' is not valid UTF-8");
    }
  }
}
