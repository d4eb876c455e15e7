package dev.zaro.arrow.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.store.ReferenceTargets.Reference;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * A kerchunk reference set seen as a store ({@code reference+json://PATH-or-URL}): each key is
 * inline text, inline {@code base64:} bytes, a whole target file ({@code [url]}) or a byte range of
 * one ({@code [url, offset, length]}). Version 0 (a flat object of references) and version 1
 * ({@code templates}, {@code gen} expansion, {@code refs}) are read; a gzip-compressed file is
 * unpacked.
 *
 * <p>Target urls may be local paths, {@code file://}, {@code http(s)://}, {@code gs://}, or any
 * scheme a {@link StoreProvider} handles ({@code s3://} with zaro-s3). Relative urls resolve
 * against the reference file's location. Each target directory is opened once, as a store, and
 * reads go through it (so HTTP targets get ranges, retries and concurrent requests).
 *
 * <p>Safety: a reference file that came over the network may not point at local files, and keys
 * with {@code ..}, {@code .} or a leading {@code /} are refused, so a reference file never makes
 * zaro read outside where the user pointed it.
 */
public final class ReferenceStore implements ReferenceBackedStore {
  /** The most references one {@code gen} entry may expand to. */
  static final long MAX_GEN = 50_000_000L;

  private final String name;
  private final NavigableMap<String, Reference> refs;
  private final ReferenceTargets targets;

  private ReferenceStore(
      String name,
      NavigableMap<String, Reference> refs,
      String baseLocation,
      boolean remote,
      RemoteLimits limits) {
    this.name = name;
    this.refs = refs;
    this.targets = new ReferenceTargets(name, baseLocation, remote, null, limits);
  }

  /**
   * Opens the reference file at {@code location}: a local path, {@code file://} URL, or a remote
   * URL ({@code http(s)://}, {@code gs://}, {@code s3://}, ...).
   */
  public static ReferenceStore open(String location) {
    return open(location, RemoteLimits.DEFAULT);
  }

  /**
   * {@link #open(String)}, the reference file read with {@code limits}: over the network with its
   * timeouts, and at most {@link RemoteLimits#maxMetadataSize} bytes wherever it is.
   */
  public static ReferenceStore open(String location, RemoteLimits limits) {
    String name = "reference+json://" + location;
    if (location == null || location.isBlank()) {
      throw new StoreException("store '" + name + "': no reference file given");
    }
    StoreLocation where = StoreLocation.parse(location);
    if (where.isLocal()) {
      Path file = where.localPath().toAbsolutePath().normalize();
      byte[] doc;
      try {
        if (Files.size(file) > limits.maxMetadataSize()) {
          throw new StoreException(
              "store '"
                  + name
                  + "': the reference file "
                  + file
                  + " is "
                  + Files.size(file)
                  + " bytes, more than the cap of "
                  + limits.maxMetadataSize()
                  + " bytes on metadata documents (--max-metadata-size)");
        }
        doc = Files.readAllBytes(file);
      } catch (NoSuchFileException e) {
        throw new StoreException("store '" + name + "': no such reference file: " + file);
      } catch (IOException e) {
        throw new StoreException(
            "store '" + name + "': cannot read the reference file " + file + ": " + e, e);
      }
      Path dir = file.getParent();
      return parse(doc, name, dir == null ? null : dir.toString() + "/", false, limits);
    }
    StoreLocation.FileIn file =
        where.fileIn("store '" + name + "': the reference file URL names no file");
    byte[] doc;
    try (Store dir = Stores.open(StoreLocation.parse(file.folder()).withLimits(limits))) {
      doc =
          dir.getBytes(file.key(), limits.maxMetadataSize())
              .orElseThrow(
                  () ->
                      new StoreException(
                          "store '" + name + "': no such reference file: " + location));
    } catch (StoreException e) {
      throw e.getMessage().startsWith("store '" + name + "'")
          ? e
          : new StoreException(
              "store '" + name + "': cannot read the reference file: " + e.getMessage(), e);
    }
    return parse(doc, name, where.parent(), true, limits);
  }

  /**
   * Reads references from a document.
   *
   * @param name how the store names itself in messages
   * @param baseLocation where relative urls resolve from (a directory path or URL ending with
   *     {@code /}), or null if relative urls are refused
   * @param remote whether the document came over the network (local targets are then refused)
   */
  public static ReferenceStore parse(
      byte[] document, String name, String baseLocation, boolean remote) {
    return parse(document, name, baseLocation, remote, RemoteLimits.DEFAULT);
  }

  /** {@link #parse(byte[], String, String, boolean)}, its targets opened with {@code limits}. */
  public static ReferenceStore parse(
      byte[] document, String name, String baseLocation, boolean remote, RemoteLimits limits) {
    JsonNode root;
    try {
      root = Json.readTree(maybeGunzip(document));
    } catch (IOException e) {
      throw new StoreException(
          "store '" + name + "': the reference file is not valid JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new StoreException("store '" + name + "': the reference file is not a JSON object");
    }
    NavigableMap<String, Reference> refs = new TreeMap<>();
    JsonNode version = root.get("version");
    if (version == null) {
      addRefs(root, Map.of(), refs, name);
    } else if (version.isIntegralNumber() && version.asInt() == 1) {
      Map<String, Object> templates = new HashMap<>();
      JsonNode t = root.path("templates");
      if (!t.isMissingNode() && !t.isObject()) {
        throw new StoreException("store '" + name + "': 'templates' must be an object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = t.properties().iterator(); it.hasNext(); ) {
        var e = it.next();
        templates.put(
            e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString());
      }
      JsonNode gen = root.path("gen");
      if (!gen.isMissingNode() && !gen.isArray()) {
        throw new StoreException("store '" + name + "': 'gen' must be a list");
      }
      for (int g = 0; g < gen.size(); g++) {
        expandGen(gen.get(g), g, templates, refs, name);
      }
      JsonNode r = root.path("refs");
      if (!r.isObject()) {
        throw new StoreException(
            "store '" + name + "': a version 1 reference file needs a 'refs' object");
      }
      addRefs(r, templates, refs, name);
    } else {
      throw new StoreException(
          "store '"
              + name
              + "': unsupported reference format version "
              + version
              + " (versions 0 and 1 are read)");
    }
    return new ReferenceStore(name, refs, baseLocation, remote, limits);
  }

  private static byte[] maybeGunzip(byte[] doc) throws IOException {
    if (doc.length >= 2 && (doc[0] & 0xff) == 0x1f && (doc[1] & 0xff) == 0x8b) {
      try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(doc))) {
        return in.readAllBytes();
      }
    }
    return doc;
  }

  private static void addRefs(
      JsonNode object,
      Map<String, Object> templates,
      NavigableMap<String, Reference> refs,
      String name) {
    for (Iterator<Map.Entry<String, JsonNode>> it = object.properties().iterator();
        it.hasNext(); ) {
      var e = it.next();
      String key = checkedKey(e.getKey(), name);
      refs.put(key, ref(key, e.getValue(), templates, name));
    }
  }

  private static String checkedKey(String key, String name) {
    if (key.isEmpty() || key.startsWith("/") || key.indexOf('\\') >= 0 || key.indexOf('\0') >= 0) {
      throw new StoreException(
          "store '"
              + name
              + "': refusing key '"
              + key
              + "': keys are relative, '/'-separated paths");
    }
    for (String segment : key.split("/", -1)) {
      if (segment.equals("..") || segment.equals(".")) {
        throw new StoreException(
            "store '"
                + name
                + "': refusing key '"
                + key
                + "': '"
                + segment
                + "' segments could read outside the store");
      }
    }
    return key;
  }

  private static Reference ref(
      String key, JsonNode value, Map<String, Object> templates, String name) {
    if (value.isTextual()) {
      String text = value.asText();
      if (text.startsWith("base64:")) {
        try {
          return new Reference.Inline(Base64.getDecoder().decode(text.substring(7).trim()));
        } catch (IllegalArgumentException e) {
          throw new StoreException(
              "store '" + name + "': key '" + key + "' has invalid base64: " + e.getMessage());
        }
      }
      return new Reference.Inline(text.getBytes(StandardCharsets.UTF_8));
    }
    if (value.isObject()) {
      return new Reference.Inline(value.toString().getBytes(StandardCharsets.UTF_8));
    }
    if (value.isArray() && (value.size() == 1 || value.size() == 3) && value.get(0).isTextual()) {
      String url = render(value.get(0).asText(), templates, key, name);
      if (url.isEmpty()) {
        throw new StoreException("store '" + name + "': key '" + key + "' has an empty url");
      }
      if (value.size() == 1) {
        return new Reference.Whole(url);
      }
      long offset = integer(value.get(1), key, "offset", name);
      long length = integer(value.get(2), key, "length", name);
      return new Reference.Part(url, offset, length);
    }
    throw new StoreException(
        "store '"
            + name
            + "': key '"
            + key
            + "' is malformed: expected a string, [url] or "
            + "[url, offset, length], found "
            + abbreviate(value.toString()));
  }

  private static long integer(JsonNode n, String key, String what, String name) {
    long v;
    if (n.isIntegralNumber() && n.canConvertToLong()) {
      v = n.asLong();
    } else if (n.isNumber() && n.asDouble() == Math.rint(n.asDouble())) {
      v = (long) n.asDouble();
    } else {
      throw new StoreException(
          "store '" + name + "': key '" + key + "' has a non-integer " + what + ": " + n);
    }
    if (v < 0) {
      throw new StoreException(
          "store '" + name + "': key '" + key + "' has a negative " + what + ": " + v);
    }
    return v;
  }

  private static String render(String text, Map<String, Object> vars, String key, String name) {
    try {
      return ReferenceTemplates.render(text, vars);
    } catch (ReferenceTemplates.TemplateException | ArithmeticException e) {
      throw new StoreException("store '" + name + "': key '" + key + "': " + e.getMessage());
    }
  }

  private static void expandGen(
      JsonNode g,
      int index,
      Map<String, Object> templates,
      NavigableMap<String, Reference> refs,
      String name) {
    String where = "gen entry " + index;
    if (!g.isObject()
        || !g.path("key").isTextual()
        || !g.path("url").isTextual()
        || !g.path("dimensions").isObject()) {
      throw new StoreException(
          "store '" + name + "': " + where + " needs 'key', 'url' and 'dimensions'");
    }
    boolean ranged = g.has("offset") || g.has("length");
    if (ranged && !(g.has("offset") && g.has("length"))) {
      throw new StoreException(
          "store '" + name + "': " + where + " has an offset or a length but not both");
    }
    List<String> names = new ArrayList<>();
    List<List<Object>> values = new ArrayList<>();
    long total = 1;
    for (Iterator<Map.Entry<String, JsonNode>> it = g.get("dimensions").properties().iterator();
        it.hasNext(); ) {
      var e = it.next();
      names.add(e.getKey());
      List<Object> vs =
          dimensionValues(e.getValue(), where + ", dimension '" + e.getKey() + "'", name);
      values.add(vs);
      total *= Math.max(1, vs.size());
      if (vs.isEmpty()) {
        total = 0;
      }
      if (total > MAX_GEN) {
        throw new StoreException(
            "store '" + name + "': " + where + " expands to more than " + MAX_GEN + " references");
      }
    }
    String keyT = g.get("key").asText();
    String urlT = g.get("url").asText();
    String offT = ranged ? g.get("offset").asText() : null;
    String lenT = ranged ? g.get("length").asText() : null;
    int[] pos = new int[names.size()];
    Map<String, Object> vars = new HashMap<>(templates);
    for (long n = 0; n < total; n++) {
      for (int d = 0; d < names.size(); d++) {
        vars.put(names.get(d), values.get(d).get(pos[d]));
      }
      String key = checkedKey(render(keyT, vars, keyT, name), name);
      String url = render(urlT, vars, key, name);
      Reference ref;
      if (ranged) {
        ref =
            new Reference.Part(
                url,
                genInteger(render(offT, vars, key, name), key, "offset", name),
                genInteger(render(lenT, vars, key, name), key, "length", name));
      } else {
        ref = new Reference.Whole(url);
      }
      refs.put(key, ref);
      for (int d = names.size() - 1; d >= 0; d--) {
        if (++pos[d] < values.get(d).size()) {
          break;
        }
        pos[d] = 0;
      }
    }
  }

  private static long genInteger(String text, String key, String what, String name) {
    try {
      double d = Double.parseDouble(text.trim());
      if (d < 0 || d != Math.rint(d)) {
        throw new NumberFormatException();
      }
      return text.contains(".") || text.contains("e") ? (long) d : Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new StoreException(
          "store '" + name + "': key '" + key + "' has an invalid " + what + " '" + text + "'");
    }
  }

  private static List<Object> dimensionValues(JsonNode dim, String where, String name) {
    List<Object> out = new ArrayList<>();
    if (dim.isArray()) {
      for (JsonNode v : dim) {
        out.add(
            v.isIntegralNumber()
                ? (Object) v.asLong()
                : v.isNumber() ? (Object) v.asDouble() : v.asText());
      }
      return out;
    }
    if (!dim.isObject() || !dim.path("stop").isIntegralNumber()) {
      throw new StoreException(
          "store '" + name + "': " + where + " must be a list or {start?, stop, step?}");
    }
    long start = dim.path("start").asLong(0);
    long stop = dim.get("stop").asLong();
    long step = dim.path("step").asLong(1);
    if (step <= 0) {
      throw new StoreException("store '" + name + "': " + where + " has a step of " + step);
    }
    if (stop <= start) {
      return out;
    }
    // stop - start overflows a long for far-apart bounds, but as an unsigned number it is exact
    long last = Long.divideUnsigned(stop - start - 1, step);
    if (Long.compareUnsigned(last, MAX_GEN) >= 0) {
      throw new StoreException(
          "store '" + name + "': " + where + " has more than " + MAX_GEN + " values");
    }
    for (long i = 0; i <= last; i++) {
      out.add(start + i * step);
    }
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  // ---- the Store contract ----

  /** What {@code key} refers to, or null. */
  @Override
  public ReferenceTargets targets() {
    return targets;
  }

  @Override
  public Reference reference(String key) {
    return refs.get(StoreKeys.checked(key, this));
  }

  @Override
  public Stream<String> list(String prefix) {
    return refs.tailMap(prefix, true).keySet().stream().takeWhile(k -> k.startsWith(prefix));
  }

  /** How many references the store holds. */
  public int size() {
    return refs.size();
  }

  @Override
  public String describe() {
    return name;
  }

  @Override
  public void close() {
    targets.close();
  }

  @Override
  public String toString() {
    return name + " (" + refs.size() + " references" + (targets.remote() ? ", remote" : "") + ")";
  }
}
