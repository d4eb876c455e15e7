package dev.zaro.arrow.store.icechunk;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;

/**
 * Icechunk object ids (12 bytes for snapshots, manifests and chunks; 8 for nodes) and their names
 * in storage: Crockford base 32, upper case, no padding, the last character padded with zero bits
 * (12 bytes give 20 characters).
 */
final class ObjectId {
  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

  /** The length of a 12-byte id's name. */
  static final int NAME_LENGTH_12 = 20;

  private ObjectId() {}

  /** The Crockford base 32 name of {@code id}. */
  static String encode(byte[] id) {
    StringBuilder out = new StringBuilder((id.length * 8 + 4) / 5);
    int buffer = 0;
    int bits = 0;
    for (byte x : id) {
      buffer = (buffer << 8) | (x & 0xff);
      bits += 8;
      while (bits >= 5) {
        out.append(ALPHABET[(buffer >>> (bits - 5)) & 31]);
        bits -= 5;
      }
      buffer &= (1 << bits) - 1;
    }
    if (bits > 0) {
      out.append(ALPHABET[(buffer << (5 - bits)) & 31]);
    }
    return out.toString();
  }

  /**
   * The 12 bytes named by {@code name} (case-insensitive).
   *
   * @throws StoreException if {@code name} is not a 20-character Crockford base 32 id
   */
  static byte[] decode12(String name, String what) {
    if (name.length() != NAME_LENGTH_12) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          "'"
              + name
              + "' is not an Icechunk "
              + what
              + " id (ids are "
              + NAME_LENGTH_12
              + " characters of Crockford base 32, such as 1CECHNKREP0F1RSTCMT0)");
    }
    byte[] out = new byte[12];
    int buffer = 0;
    int bits = 0;
    int n = 0;
    for (int i = 0; i < name.length(); i++) {
      int v = value(Character.toUpperCase(name.charAt(i)));
      if (v < 0) {
        throw new StoreException(
            ErrorKind.INVALID_ARGUMENT,
            "'"
                + name
                + "' is not an Icechunk "
                + what
                + " id: '"
                + name.charAt(i)
                + "' is not a Crockford base 32 character");
      }
      buffer = (buffer << 5) | v;
      bits += 5;
      if (bits >= 8) {
        out[n++] = (byte) (buffer >>> (bits - 8));
        bits -= 8;
        buffer &= (1 << bits) - 1;
      }
    }
    if (buffer != 0) {
      throw new StoreException(
          ErrorKind.INVALID_ARGUMENT,
          "'" + name + "' is not an Icechunk " + what + " id: its padding bits are not zero");
    }
    return out;
  }

  private static int value(char c) {
    for (int i = 0; i < ALPHABET.length; i++) {
      if (ALPHABET[i] == c) {
        return i;
      }
    }
    return -1;
  }
}
