package dev.zaro.arrow.store.icechunk;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.StoreException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The envelope every Icechunk metadata file shares (repo info, snapshots, manifests, transaction
 * logs): a 39-byte header (the 12 magic bytes {@code ICE🧊CHUNK}, a 24-byte implementation name,
 * the spec version (1 for Icechunk 1.x, 2 for 2.x), the file type, the compression (0 none, 1
 * zstd)) and a FlatBuffers body, zstd-compressed. The body starts with its root offset and the file
 * identifier {@code Ichk}.
 */
final class IcechunkFile {
  static final byte[] MAGIC = "ICE🧊CHUNK".getBytes(StandardCharsets.UTF_8);
  static final int HEADER_LENGTH = MAGIC.length + 24 + 3;
  static final int SNAPSHOT = 1;
  static final int MANIFEST = 2;
  static final int REPO_INFO = 6;

  /** The largest decompressed body read (metadata lives on the heap). */
  static final int MAX_BODY = Integer.MAX_VALUE - 64;

  private IcechunkFile() {}

  /** The header's fields. */
  record Header(String implementation, int specVersion, int fileType, int compression) {}

  static String typeName(int type) {
    return switch (type) {
      case SNAPSHOT -> "snapshot";
      case MANIFEST -> "manifest";
      case 4 -> "transaction log";
      case REPO_INFO -> "repo info";
      default -> "type " + type;
    };
  }

  /** Reads and checks the header of {@code file}, named {@code key} in messages. */
  static Header header(byte[] file, String key) {
    if (file.length < HEADER_LENGTH) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "corrupt Icechunk file '"
              + key
              + "': "
              + file.length
              + " bytes, shorter than the "
              + HEADER_LENGTH
              + "-byte header");
    }
    if (!Arrays.equals(file, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "'"
              + key
              + "' is not an Icechunk file (it does not start with the magic bytes"
              + " ICE🧊CHUNK)");
    }
    String impl = new String(file, MAGIC.length, 24, StandardCharsets.UTF_8).strip();
    int version = file[MAGIC.length + 24] & 0xff;
    int type = file[MAGIC.length + 25] & 0xff;
    int compression = file[MAGIC.length + 26] & 0xff;
    if (version != 1 && version != 2) {
      throw new StoreException(
          ErrorKind.UNSUPPORTED,
          "'"
              + key
              + "' has Icechunk format version "
              + version
              + " (written by '"
              + impl
              + "'); zaro reads versions 1 and 2 (Icechunk 1.x and 2.x)");
    }
    if (compression > 1) {
      throw new StoreException(
          ErrorKind.UNSUPPORTED,
          "'"
              + key
              + "' uses the unknown Icechunk compression "
              + compression
              + " (zaro reads 0, none, and 1, zstd)");
    }
    return new Header(impl, version, type, compression);
  }

  /**
   * The FlatBuffers body of {@code file}, a metadata file of type {@code expectedType}.
   *
   * @throws StoreException if the header is wrong, the type differs, or the body does not
   *     decompress
   */
  static FlatBuffer body(byte[] file, String key, int expectedType) {
    Header h = header(file, key);
    if (h.fileType() != expectedType) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          "'"
              + key
              + "' is an Icechunk "
              + typeName(h.fileType())
              + " file where a "
              + typeName(expectedType)
              + " file was expected");
    }
    byte[] body;
    if (h.compression() == 0) {
      body = Arrays.copyOfRange(file, HEADER_LENGTH, file.length);
    } else {
      body =
          unzstd(
              file,
              HEADER_LENGTH,
              file.length - HEADER_LENGTH,
              null,
              MAX_BODY,
              "corrupt Icechunk file '" + key + "'");
    }
    FlatBuffer fb = new FlatBuffer(body, key);
    if (body.length < 8 || body[4] != 'I' || body[5] != 'c' || body[6] != 'h' || body[7] != 'k') {
      throw fb.corrupt("the body lacks the FlatBuffers identifier 'Ichk'");
    }
    return fb;
  }

  /**
   * Decompresses a zstd frame (optionally with a dictionary), refusing more than {@code max} bytes
   * of output.
   *
   * @param context the start of the message for a failure
   */
  static byte[] unzstd(
      byte[] in, int offset, int length, byte[] dictionary, int max, String context) {
    try (InputStream z = zstdStream(new ByteArrayInputStream(in, offset, length), dictionary)) {
      ByteArrayOutputStream out =
          new ByteArrayOutputStream(Math.max(64, Math.min(length * 4, 1 << 20)));
      byte[] buf = new byte[64 * 1024];
      long total = 0;
      for (int n; (n = z.read(buf)) > 0; ) {
        total += n;
        if (total > max) {
          throw new StoreException(
              ErrorKind.CORRUPT, context + ": it decompresses to more than " + max + " bytes");
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new StoreException(
          ErrorKind.CORRUPT,
          context + ": the zstd data is damaged or truncated (" + e.getMessage() + ")",
          e);
    }
  }

  private static InputStream zstdStream(InputStream in, byte[] dictionary) throws IOException {
    ZstdInputStreamNoFinalizer z = new ZstdInputStreamNoFinalizer(in);
    if (dictionary != null) {
      z.setDict(dictionary);
    }
    return z;
  }
}
