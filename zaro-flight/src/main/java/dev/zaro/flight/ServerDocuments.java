package dev.zaro.flight;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.json.Json;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ReadOptions;
import dev.zaro.arrow.read.ReadStats;
import dev.zaro.arrow.read.internal.NodeJson;
import dev.zaro.arrow.store.StoreKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.Result;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The JSON documents a server answers with, over Flight actions and HTTP alike: a node's metadata,
 * the whole hierarchy, a group's description (with its small arrays' values), and the server's
 * stats. Thread-safe; owns nothing.
 */
final class ServerDocuments {
  private final Zaro zaro;
  private final BufferAllocator allocator;
  private final MemoryBudget budget;
  private final ZaroFlightProducer.FlightOptions options;
  private final ReadOptions readOptions;

  /** Chunks decoded (and found missing) by every read since start. */
  private final ReadStats reads;

  /** Arrow IPC body bytes sent by every stream (after compression). */
  private final LongAdder wireBytes;

  private final SharedMemoryDelivery sharedMemory;

  private final DescribeCache describeCache;

  ServerDocuments(
      Zaro zaro,
      BufferAllocator allocator,
      MemoryBudget budget,
      ZaroFlightProducer.FlightOptions options,
      ReadOptions readOptions,
      ReadStats reads,
      LongAdder wireBytes,
      SharedMemoryDelivery sharedMemory) {
    this.zaro = zaro;
    this.allocator = allocator;
    this.budget = budget;
    this.options = options;
    this.readOptions = readOptions;
    this.reads = reads;
    this.wireBytes = wireBytes;
    this.sharedMemory = sharedMemory;
    this.describeCache = new DescribeCache(zaro);
  }

  /**
   * The describe action: a group's JSON, then each array's tensor-layout IPC stream (schema, and
   * the values of small arrays), read inside the memory budget, or kept from an earlier answer
   * ({@link DescribeCache}).
   */
  void describe(GroupDescription.Request request, StreamListener<Result> listener) {
    List<byte[]> answer =
        describeCache.answer(
            new DescribeCache.Key(request, false),
            description -> {
              List<byte[]> parts = new ArrayList<>();
              parts.add(description.json().toString().getBytes(StandardCharsets.UTF_8));
              try (BufferAllocator child =
                  budget.allocator().newChildAllocator("describe", 0, options.requestBytes())) {
                parts.addAll(description.streams(child, readOptions));
              }
              return parts;
            });
    for (byte[] part : answer) {
      listener.onNext(new Result(part));
    }
    listener.onCompleted();
  }

  /** GET /describe/{path}: a group's JSON with the values of its small arrays inline. */
  String describeJson(GroupDescription.Request request) {
    List<byte[]> answer =
        describeCache.answer(
            new DescribeCache.Key(request, true),
            description -> {
              try (BufferAllocator child =
                  budget.allocator().newChildAllocator("describe", 0, options.requestBytes())) {
                return List.of(
                    description
                        .jsonWithValues(child, readOptions)
                        .toString()
                        .getBytes(StandardCharsets.UTF_8));
              }
            });
    return new String(answer.get(0), StandardCharsets.UTF_8);
  }

  /** The stats action's JSON: memory, the budget, streams, and body bytes sent. */
  String statsJson() {
    return "{\"allocated_bytes\":"
        + allocator.getAllocatedMemory()
        + ",\"peak_allocated_bytes\":"
        + allocator.getPeakMemoryAllocation()
        + ",\"stream_body_bytes\":"
        + wireBytes.sum()
        + ",\"shared_memory_bytes\":"
        + sharedMemory.bytesWritten()
        + ",\"describe_cache_hits\":"
        + describeCache.hits()
        + (zaro.cache() == null
            ? ""
            : ",\"cache_allocated_bytes\":"
                + zaro.cache().allocatedBytes()
                + ","
                + zaro.cache().stats().jsonFields())
        + ","
        + budget.statsJson()
        + ",\"chunks_decoded\":"
        + reads.chunksDecoded()
        + ",\"chunks_missing\":"
        + reads.chunksMissing()
        + "}";
  }

  /** The metadata action's JSON: the normalized metadata of the node at {@code path}. */
  String metadataJson(String path) {
    String p = StoreKeys.stripSlashes(path);
    Node node = new Node(p, zaro.node(p));
    var children = node.isArray() ? null : zaro.hierarchy().children(p);
    return NodeJson.of(node, children).toString();
  }

  /** Every node of the hierarchy as {@code {"nodes": [metadata JSON of each]}}. */
  String hierarchyJson() {
    ArrayNode nodes = Json.nodeFactory().arrayNode();
    for (Node node : zaro.list()) {
      nodes.add(NodeJson.of(node, node.isArray() ? null : zaro.hierarchy().children(node.path())));
    }
    ObjectNode out = Json.createObjectNode();
    out.set("nodes", nodes);
    return out.toString();
  }
}
