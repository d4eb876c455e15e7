package dev.zaro.cli;

import dev.zaro.arrow.error.ZaroException;
import dev.zaro.sql.SqlEngine;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.c.jni.JniLoader;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/** The {@code zaro} command line. */
@Command(
    name = "zaro",
    mixinStandardHelpOptions = true,
    version = "zaro 0.1.0",
    description = "Reads Zarr arrays into Apache Arrow.")
public final class Main implements Runnable {
  /**
   * The subcommands' names, in the order help lists them. Added by {@link #run} rather than
   * declared on the annotation: picocli builds each added command's model (reflection over its
   * options) at start, about 0.1 CPU s for all of them, so a run of one named command builds only
   * that one ({@link #command} makes them, so that no other command's class is even loaded).
   */
  private static final List<String> COMMANDS =
      List.of("ls", "info", "read", "serve", "ui", "sql", "bench", "help");

  /** What every command's STORE may be (docs/cli.md, "Commands"). */
  static final String STORE_HELP =
      "Where the hierarchy is: a local path or file:// URL, http(s)://host/path, s3://bucket/prefix"
          + " (?endpoint=http://host:port&path_style=true&region=R for S3-compatible servers),"
          + " gs://bucket/prefix, kerchunk references reference+json://PATH-or-URL or"
          + " reference+parquet://PATH-or-URL, or an Icechunk repository icechunk://PATH,"
          + " icechunk+s3://..., icechunk+gs://..., icechunk+https://... (?branch=, ?tag=,"
          + " ?snapshot=).";

  static {
    // On 1-2 cores the common pool has parallelism 1, and CompletableFuture's default executor is
    // then a new thread per task; the JDK HttpClient hands every sendAsync reply to that executor,
    // so a remote read started (and tore down) one thread per request. Set before anything loads
    // ForkJoinPool; an explicit -D setting wins.
    String parallelism = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(parallelism) == null
        && Runtime.getRuntime().availableProcessors() <= 2) {
      System.setProperty(parallelism, "2");
    }
    // The JDK HttpClient reads replies in 16 KiB buffers, each passed through its flow machinery:
    // 64 KiB took a shard-sized (5.6 MiB) read-all over loopback HTTP from 0.22 to 0.18 s and left
    // one of many 90 KiB chunks unchanged (benchmarks/README.md, object-store latency). Larger
    // buffers cost more for small replies (each read allocates one). An explicit -D setting wins.
    if (System.getProperty("jdk.httpclient.bufsize") == null) {
      System.setProperty("jdk.httpclient.bufsize", "65536");
    }
    // picocli looks for Groovy's closure class when it first makes a command: a class that is not
    // there, so the class loader opened every jar of the class path to be sure (about 0.1 CPU s
    // of each start of the command line's 111 jars). zaro's annotations hold no closures.
    if (System.getProperty("picocli.disable.closures") == null) {
      System.setProperty("picocli.disable.closures", "true");
    }
    // And Arrow's search for its allocation manager, which lists every copy of three class files on
    // the class path: it picks the first of arrow-memory-unsafe's and arrow-memory-netty's, which
    // is the unsafe one; named here as Arrow's own setting (an explicit property or
    // ARROW_ALLOCATION_MANAGER_TYPE wins).
    if (System.getProperty("arrow.allocation.manager.type") == null
        && System.getenv("ARROW_ALLOCATION_MANAGER_TYPE") == null) {
      System.setProperty("arrow.allocation.manager.type", "Unsafe");
    }
    // The same for SLF4J's search for a logging provider (Arrow's allocator logs through SLF4J):
    // the command line ships slf4j-nop, named here, so no search; quietly (SLF4J announces a
    // provider named this way at its INFO level).
    if (System.getProperty("slf4j.provider") == null) {
      System.setProperty("slf4j.provider", "org.slf4j.nop.NOPServiceProvider");
      if (System.getProperty("slf4j.internal.verbosity") == null) {
        System.setProperty("slf4j.internal.verbosity", "WARN");
      }
    }
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the CLI and returns the exit code (for tests). */
  public static int run(String... args) {
    startAhead(args);
    CommandLine cli = new CommandLine(new Main());
    // before the settings below, which apply to the subcommands present when they are made
    for (String name : commandsFor(args)) {
      cli.addSubcommand(name, command(name));
    }
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          PrintWriter err = commandLine.getErr();
          if (e instanceof BindFailure) { // a usage mistake found only when binding: one line
            err.println("zaro: error: " + e.getMessage());
            err.flush();
            return commandLine.getCommandSpec().exitCodeOnInvalidInput();
          }
          if (e instanceof ZaroException) {
            err.println("zaro: error: " + withCauses(e));
          } else if (e instanceof IOException) {
            err.println("zaro: error: " + withCauses(e));
          } else {
            err.println("zaro: internal error: " + e);
            e.printStackTrace(err);
          }
          if (System.getenv("ZARO_DEBUG") != null) {
            e.printStackTrace(err);
          }
          err.flush();
          return 1;
        });
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter err = command.getErr();
          String name = command.getCommandSpec().qualifiedName();
          err.println("zaro: error: " + e.getMessage());
          if (e instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            err.println("  did you mean: " + String.join(", ", u.getSuggestions()) + "?");
          }
          err.println(
              "  usage: "
                  + command.getHelp().synopsis(0).strip().replaceAll("\\s+", " ")
                  + "  ('"
                  + name
                  + " --help' explains each option)");
          err.flush();
          return command.getCommandSpec().exitCodeOnInvalidInput();
        });
    return cli.execute(args);
  }

  /**
   * Begins, on daemon threads, start-up work that the command {@code args} names needs whatever its
   * other arguments, so that it overlaps picocli's parse (about 60 ms of the main thread): for the
   * commands that open a store, zaro's JSON parser ({@link WarmUp#opening}) and, for those that
   * read into Arrow, Arrow's schema reader; for {@code sql} also DuckDB ({@link
   * SqlEngine#openAhead}) and Arrow's C Data library, which hands DuckDB its tables
   * (benchmarks/README.md, "One query"). A failure there is dropped: the command meets it again
   * itself, where it is reported.
   *
   * @return the thread started, or null for a command that opens no store
   */
  static Thread startAhead(String... args) {
    String command = args.length == 0 ? "" : args[0];
    boolean sql = command.equals("sql");
    boolean arrow = sql || List.of("read", "bench", "serve").contains(command);
    if (!arrow && !List.of("ls", "info").contains(command)) {
      return null;
    }
    if (sql) {
      SqlEngine.openAhead();
    }
    Thread ahead =
        new Thread(
            () -> {
              try {
                // in the order the command meets them
                WarmUp.opening();
                if (arrow) {
                  new RootAllocator().close(); // Arrow's allocator configuration
                  new Schema(List.of()); // its class initializer builds a Jackson deserializer
                }
                if (sql) {
                  JniLoader.get().ensureLoaded();
                }
                if (arrow) {
                  WarmUp.reads();
                }
              } catch (RuntimeException | LinkageError e) {
                // met again, and reported, by the command itself
              }
            },
            "zaro-ahead");
    ahead.setDaemon(true);
    ahead.start();
    return ahead;
  }

  /**
   * The names of the subcommands a run of {@code args} needs: only the named one when the first
   * argument names a command other than {@code help}, none for {@code --version}, and all of them
   * otherwise (help, usage and a mistyped command's suggestions list every command).
   */
  static List<String> commandsFor(String... args) {
    String first = args.length == 0 ? "" : args[0];
    if (first.equals("-V") || first.equals("--version")) {
      return List.of();
    }
    return COMMANDS.contains(first) && !first.equals("help") ? List.of(first) : COMMANDS;
  }

  /** A new instance of the subcommand {@code name}, one of {@link #COMMANDS}. */
  private static Object command(String name) {
    return switch (name) {
      case "ls" -> new LsCommand();
      case "info" -> new InfoCommand();
      case "read" -> new ReadCommand();
      case "serve" -> new ServeCommand();
      case "ui" -> new UiCommand();
      case "sql" -> new SqlCommand();
      case "bench" -> new BenchCommand();
      case "help" -> new CommandLine.HelpCommand();
      default -> throw new IllegalArgumentException("no command " + name);
    };
  }

  /**
   * The message of {@code e} followed by each cause's that it does not already contain (an
   * unreachable endpoint's "connection refused", say), so no debug flag is needed to see why.
   */
  static String withCauses(Throwable e) {
    StringBuilder out =
        new StringBuilder(e instanceof ZaroException ? e.getMessage() : e.toString());
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && cause != e && depth < 5; depth++) {
      String m = cause.getMessage();
      String text = m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
      if (!out.toString().contains(text)) {
        out.append(": ").append(text);
      }
      e = cause;
      cause = cause.getCause();
    }
    return out.toString();
  }

  /**
   * Fails before any reading when {@code --out}'s directory does not exist (instead of an I/O error
   * naming the temporary file the result is first written to).
   */
  static void checkOut(Path out) {
    if (out == null) {
      return;
    }
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      throw new ZaroException(
          "--out "
              + out
              + ": the directory "
              + parent
              + " does not exist (create it first, or choose another)");
    }
  }

  /** This command as picocli built it, with the subcommands {@link #run} added. */
  @Spec private CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
