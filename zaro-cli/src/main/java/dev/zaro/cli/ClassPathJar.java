package dev.zaro.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;

/**
 * Merges the command line's class path into one jar, for the {@code ./zaro} launcher
 * (docs/startup.md, "Start-up"). A JVM opens every jar of its class path the first time anything
 * looks for a class or resource that is not there (DuckDB's driver looking for its bundled library,
 * the JDK looking for a {@code System.LoggerFinder}): about 45 ms for the command line's 112 jars,
 * a lock other threads' class loading waits on meanwhile; one jar of the same entries opens in half
 * that. Not a user command.
 *
 * <p>The merged jar answers as the class path did: an entry comes from the first jar that has it,
 * as {@code getResource} finds it on a class path; the files read with {@code getResources}, where
 * every jar's copy counts, are joined instead ({@code META-INF/services/*}, Netty's version list).
 * Left out: each jar's manifest (one new one, with {@code Multi-Release} when a multi-release jar
 * contributed versioned classes), {@code INDEX.LIST} (it names the jars it indexes), signature
 * files (they sign one jar's contents) and {@code module-info.class} (ignored on a class path).
 * Versioned entries of a jar that is not multi-release are left out too, as that jar never used
 * them. Any other entry that two jars hold with different contents makes the merge refuse (the
 * launcher then runs on the plain class path): such a file could be one a library reads from every
 * jar, which one copy would silently change. Only documentation (licence and notice files, Maven's
 * descriptors) is exempt, first copy kept.
 */
final class ClassPathJar {
  /** Entries joined from every jar, in class-path order. */
  private static final Pattern JOINED =
      Pattern.compile("META-INF/services/[^/]+|META-INF/io\\.netty\\.versions\\.properties");

  /** Entries no jar of a merge keeps. */
  private static final Pattern DROPPED =
      Pattern.compile(
          "META-INF/MANIFEST\\.MF|META-INF/INDEX\\.LIST|META-INF/[^/]+\\.(SF|RSA|DSA|EC)"
              + "|META-INF/SIG-[^/]*|(META-INF/versions/[0-9]+/)?module-info\\.class");

  /** Documentation a jar carries for its readers, not its code: the first copy is kept. */
  private static final Pattern DOCUMENTATION =
      Pattern.compile(
          "(META-INF/)?[^/]*(LICENSE|LICENCE|NOTICE|DEPENDENCIES|COPYRIGHT|README)[^/]*"
              + "|META-INF/maven/.*|META-INF/[^/]+\\.(txt|md|html)",
          Pattern.CASE_INSENSITIVE);

  private ClassPathJar() {}

  /**
   * Writes the merge of {@code args[1..]} (jars, in class-path order) to {@code args[0]}; exits
   * with status 2, naming the entries, when two jars hold an entry with different contents that is
   * neither joined nor documentation.
   *
   * @param args the jar to write, then the class path's jars
   * @throws IOException when a jar cannot be read or the output written
   */
  public static void main(String[] args) throws IOException {
    List<Path> jars = Arrays.stream(args).skip(1).map(Path::of).toList();
    List<String> conflicts = merge(jars, Path.of(args[0]));
    if (!conflicts.isEmpty()) {
      System.err.println(
          "zaro: the class path's jars differ on entries a merge cannot join: " + conflicts);
      System.exit(2);
    }
  }

  /**
   * Merges {@code jars} into {@code out} (replaced) as described above.
   *
   * @return the entries two jars hold with different contents that are neither joined nor
   *     documentation; when not empty, {@code out} is not written
   * @throws IOException when a jar cannot be read or {@code out} written
   */
  static List<String> merge(List<Path> jars, Path out) throws IOException {
    Map<String, Long> kept = new HashMap<>(); // name -> its contents' CRC-32 and length
    Map<String, List<byte[]>> joined = new LinkedHashMap<>();
    Set<String> conflicts = new LinkedHashSet<>();
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    try (JarOutputStream merged = new JarOutputStream(Files.newOutputStream(tmp), manifest(jars))) {
      merged.setLevel(Deflater.BEST_SPEED);
      for (Path path : jars) {
        try (JarFile jar = new JarFile(path.toFile(), false)) {
          boolean releases = multiRelease(jar);
          for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
            String name = entry.getName();
            boolean versioned = name.startsWith("META-INF/versions/");
            if (DROPPED.matcher(name).matches() || (versioned && !releases)) {
              continue;
            }
            byte[] bytes;
            try (InputStream in = jar.getInputStream(entry)) {
              bytes = in.readAllBytes();
            }
            if (JOINED.matcher(name).matches()) {
              joined.computeIfAbsent(name, n -> new ArrayList<>()).add(bytes);
              continue;
            }
            CRC32 crc = new CRC32();
            crc.update(bytes);
            long identity = crc.getValue() << 32 ^ bytes.length;
            Long first = kept.putIfAbsent(name, identity);
            if (first == null) {
              merged.putNextEntry(new ZipEntry(name));
              merged.write(bytes);
              merged.closeEntry();
            } else if (first != identity
                && !entry.isDirectory()
                && !DOCUMENTATION.matcher(name).matches()) {
              conflicts.add(name + " (" + path.getFileName() + ")");
            }
          }
        }
      }
      for (Map.Entry<String, List<byte[]>> e : joined.entrySet()) {
        merged.putNextEntry(new ZipEntry(e.getKey()));
        merged.write(join(e.getValue()));
        merged.closeEntry();
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    if (!conflicts.isEmpty()) {
      Files.delete(tmp);
      return List.copyOf(conflicts);
    }
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
    return List.of();
  }

  /** The merged jar's manifest: multi-release when a multi-release jar has versioned classes. */
  private static Manifest manifest(List<Path> jars) throws IOException {
    boolean versions = false;
    for (Path path : jars) {
      try (JarFile jar = new JarFile(path.toFile(), false)) {
        versions |=
            multiRelease(jar)
                && jar.stream()
                    .map(JarEntry::getName)
                    .anyMatch(
                        n ->
                            n.startsWith("META-INF/versions/")
                                && n.endsWith(".class")
                                && !DROPPED.matcher(n).matches());
      }
    }
    Manifest manifest = new Manifest();
    Attributes main = manifest.getMainAttributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    main.putValue("Created-By", "zaro launcher, from " + jars.size() + " jars");
    if (versions) {
      main.put(Attributes.Name.MULTI_RELEASE, "true");
    }
    return manifest;
  }

  private static boolean multiRelease(JarFile jar) throws IOException {
    Manifest manifest = jar.getManifest();
    return manifest != null
        && "true"
            .equalsIgnoreCase(manifest.getMainAttributes().getValue(Attributes.Name.MULTI_RELEASE));
  }

  /** The files' lines in order, each line once (a provider two jars name is loaded once anyway). */
  private static byte[] join(List<byte[]> files) {
    Set<String> lines = new LinkedHashSet<>();
    for (byte[] file : files) {
      new String(file, StandardCharsets.UTF_8).lines().forEach(lines::add);
    }
    return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
