package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.CodecSpec;
import dev.zaro.arrow.metadata.GroupMetadata;
import dev.zaro.arrow.read.Node;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "ls",
    mixinStandardHelpOptions = true,
    description =
        "Lists the groups and arrays of a hierarchy: path, kind, data type, shape, chunks, codecs.")
final class LsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Mixin RemoteOptions remote = new RemoteOptions();

  @Override
  public Integer call() {
    try (Zaro zaro = Zaro.open(store, remote.apply(ZaroOptions.defaults()))) {
      List<Node> nodes = zaro.list();
      int width = nodes.stream().mapToInt(n -> n.displayPath().length()).max().orElse(1);
      for (Node n : nodes) {
        String path = String.format("%-" + width + "s", n.displayPath());
        // v2 and v3 go without saying; a draft store's nodes say so
        boolean draft = n.metadata().formatName().equals("v3 draft");
        if (n.metadata() instanceof ArrayMetadata a) {
          System.out.printf(
              "%s  array  %-10s %-18s chunks %-16s %s%s%n",
              path,
              a.dataType(),
              Arrays.toString(a.shape()),
              a.chunkGrid().toString(),
              a.codecs().stream().map(CodecSpec::name).toList(),
              draft ? "  (v3 draft)" : "");
        } else {
          boolean implicit = ((GroupMetadata) n.metadata()).implicit();
          System.out.printf(
              "%s  group%s%n",
              path,
              implicit && draft
                  ? " (implicit, v3 draft)"
                  : implicit ? " (implicit)" : draft ? " (v3 draft)" : "");
        }
      }
      zaro.hierarchy()
          .unreadable()
          .forEach(
              (path, why) -> System.err.println("zaro: warning: skipped /" + path + ": " + why));
      if (!zaro.hierarchy().listsEverything()
          && nodes.size() == 1
          && nodes.get(0).metadata() instanceof GroupMetadata) {
        System.err.println(
            "zaro: warning: "
                + store
                + " cannot list its keys (HTTP) and its root has no consolidated metadata:"
                + " only the root is shown; name a node by its path (zaro info STORE /PATH)");
      }
    }
    return 0;
  }
}
