package dev.zaro.cli;

import com.fasterxml.jackson.databind.SerializationFeature;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.internal.NodeJson;
import dev.zaro.arrow.store.StoreKeys;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description = "Prints a node's normalized metadata as JSON (the root when PATH is omitted).")
final class InfoCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "STORE", description = Main.STORE_HELP)
  String store;

  @Mixin RemoteOptions remote = new RemoteOptions();

  @Parameters(
      index = "1",
      paramLabel = "PATH",
      defaultValue = "/",
      description = "Node path (default: the root).")
  String path;

  @Override
  public Integer call() throws Exception {
    try (Zaro zaro = Zaro.open(store, remote.apply(ZaroOptions.defaults()))) {
      String p = StoreKeys.stripSlashes(path);
      Node node = new Node(p, zaro.node(p));
      var children = node.metadata() instanceof ArrayMetadata ? null : zaro.hierarchy().children(p);
      System.out.println(
          Json.writer(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(NodeJson.of(node, children)));
    }
    return 0;
  }
}
