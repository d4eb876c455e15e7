package dev.zaro.sql;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.flight.FlightErrors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A read-only Flight SQL service over a {@link SqlEngine}: queries (statements and prepared
 * statements, with parameters bound by DoPut: {@link BoundParameters}) run in DuckDB with the
 * engine's pushdown; GetCatalogs, GetDbSchemas, GetTables, GetTableTypes and GetSqlInfo let tools
 * browse (every array is a table of schema {@code main}, no catalog); primary and foreign key
 * requests answer with no rows. Updates, ingestion, transactions and Substrait plans are refused.
 *
 * <p>Timestamps without a time zone are sent as timestamps in UTC ({@link UtcTimes}), so that the
 * JDBC driver has instants to give.
 *
 * <p>Stateless: a ticket or prepared-statement handle is the query text itself, so any server over
 * the same store can serve it. Each stream runs on its own child of {@code allocator}.
 */
public final class ZaroFlightSqlProducer extends NoOpFlightSqlProducer {
  private static final String READ_ONLY =
      "zaro serves arrays read-only: only queries (SELECT) are accepted";

  /** Makes the engine on first use; null once it is made. */
  private Supplier<SqlEngine> newEngine;

  /** Null until first use (guarded by this). */
  private SqlEngine engine;

  private final BufferAllocator allocator;
  private final SqlInfoBuilder sqlInfo;
  private final long batchRows;
  private final SqlCatalog catalog;

  /**
   * Serves {@code engine} (owned: closed with this producer); buffers from children of {@code
   * allocator}.
   */
  public ZaroFlightSqlProducer(SqlEngine engine, BufferAllocator allocator) {
    this(() -> engine, allocator);
    engine();
  }

  /**
   * Serves the engine {@code newEngine} makes on the first request that needs it (owned: closed
   * with this producer), so that a server is up before DuckDB has started; a failure to make it is
   * that request's error (and the next request tries again). Buffers from children of {@code
   * allocator}.
   */
  public ZaroFlightSqlProducer(Supplier<SqlEngine> newEngine, BufferAllocator allocator) {
    this.newEngine = newEngine;
    this.allocator = allocator;
    this.batchRows = 64 * 1024;
    this.catalog = new SqlCatalog(this::engine, allocator);
    this.sqlInfo =
        new SqlInfoBuilder()
            .withFlightSqlServerName("zaro")
            .withFlightSqlServerVersion("0.1.0")
            .withFlightSqlServerReadOnly(true)
            .withFlightSqlServerSql(true)
            .withFlightSqlServerSubstrait(false)
            .withFlightSqlServerTransaction(
                FlightSql.SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
            .withFlightSqlServerCancel(false)
            .withSqlIdentifierQuoteChar("\"");
  }

  private synchronized SqlEngine engine() {
    if (engine == null) {
      engine = newEngine.get();
      newEngine = null;
    }
    return engine;
  }

  static FlightRuntimeException status(RuntimeException e) {
    if (e instanceof FlightRuntimeException f) {
      return f;
    }
    if (e instanceof ZaroException z) {
      return FlightErrors.status(z);
    }
    return CallStatus.INTERNAL.withDescription(e.toString()).withCause(e).toRuntimeException();
  }

  /** The result schema of a query, refusing anything else. */
  private Schema schemaOf(String sql) {
    try (BufferAllocator child = allocator.newChildAllocator("sql schema", 0, Long.MAX_VALUE);
        SqlQuery query = engine().query(engine().schemaQuery(sql), child);
        ArrowReader reader = query.executeArrow(child, 1)) {
      return UtcTimes.schema(reader.getVectorSchemaRoot().getSchema());
    } catch (IOException e) {
      throw CallStatus.INTERNAL.withDescription(e.toString()).toRuntimeException();
    } catch (ZaroException e) {
      throw status(e);
    }
  }

  private FlightInfo queryInfo(String sql, FlightDescriptor descriptor, Message ticket) {
    Schema schema = schemaOf(unbound(sql));
    return new FlightInfo(
        schema,
        descriptor,
        List.of(new FlightEndpoint(new Ticket(Any.pack(ticket).toByteArray()))),
        -1,
        -1);
  }

  @Override
  public FlightInfo getFlightInfoStatement(
      FlightSql.CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    String sql = command.getQuery();
    return queryInfo(
        sql,
        descriptor,
        FlightSql.TicketStatementQuery.newBuilder()
            .setStatementHandle(ByteString.copyFromUtf8(sql))
            .build());
  }

  @Override
  public SchemaResult getSchemaStatement(
      FlightSql.CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return new SchemaResult(schemaOf(command.getQuery()));
  }

  @Override
  public void getStreamStatement(
      FlightSql.TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    run(ticket.getStatementHandle().toStringUtf8(), listener);
  }

  @Override
  public void createPreparedStatement(
      FlightSql.ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    try {
      String sql = request.getQuery();
      List<String> types = parameterTypes(sql);
      Schema schema = schemaOf(unbound(sql));
      FlightSql.ActionCreatePreparedStatementResult.Builder result =
          FlightSql.ActionCreatePreparedStatementResult.newBuilder()
              .setPreparedStatementHandle(ByteString.copyFromUtf8(sql))
              .setDatasetSchema(ByteString.copyFrom(schema.serializeAsMessage()));
      if (!types.isEmpty()) {
        result.setParameterSchema(
            ByteString.copyFrom(BoundParameters.schema(types).serializeAsMessage()));
      }
      listener.onNext(new Result(Any.pack(result.build()).toByteArray()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(FlightErrors.onWire(status(e)));
    }
  }

  /** DuckDB's types of the parameters of {@code sql} (empty without any). */
  private List<String> parameterTypes(String sql) {
    // a parameter is '?' or '$...': a statement without either character has none
    return sql.indexOf('?') < 0 && sql.indexOf('$') < 0
        ? List.of()
        : BoundParameters.types(engine(), sql);
  }

  /** {@code sql} with NULLs of their types for its parameters, for its result schema. */
  private String unbound(String sql) {
    List<String> types = parameterTypes(sql);
    return types.isEmpty() ? sql : BoundParameters.withNulls(engine(), sql, types);
  }

  @Override
  public void closePreparedStatement(
      FlightSql.ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    listener.onCompleted(); // handles hold no server state
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightDescriptor descriptor) {
    List<String> bound = BoundHandle.statements(command.getPreparedStatementHandle());
    if (bound == null) {
      return queryInfo(command.getPreparedStatementHandle().toStringUtf8(), descriptor, command);
    }
    // parameters bound (DoPut): the statement once per parameter row, an endpoint each
    Schema schema = schemaOf(unbound(BoundHandle.query(command.getPreparedStatementHandle())));
    List<FlightEndpoint> endpoints = new ArrayList<>();
    for (String statement : bound) {
      FlightSql.TicketStatementQuery ticket =
          FlightSql.TicketStatementQuery.newBuilder()
              .setStatementHandle(ByteString.copyFromUtf8(statement))
              .build();
      endpoints.add(new FlightEndpoint(new Ticket(Any.pack(ticket).toByteArray())));
    }
    return new FlightInfo(schema, descriptor, endpoints, -1, -1);
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightDescriptor descriptor) {
    String query = BoundHandle.query(command.getPreparedStatementHandle());
    return new SchemaResult(schemaOf(unbound(query)));
  }

  @Override
  public void getStreamPreparedStatement(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      ServerStreamListener listener) {
    List<String> bound = BoundHandle.statements(command.getPreparedStatementHandle());
    if (bound != null && bound.size() != 1) {
      listener.error(
          CallStatus.INVALID_ARGUMENT
              .withDescription("sql: fetch each parameter row's endpoint of GetFlightInfo")
              .toRuntimeException());
      return;
    }
    run(
        bound == null ? command.getPreparedStatementHandle().toStringUtf8() : bound.get(0),
        listener);
  }

  /** Runs a query and streams DuckDB's result batches as the client takes them. */
  private void run(String sql, ServerStreamListener listener) {
    try (BufferAllocator child = allocator.newChildAllocator("sql", 0, Long.MAX_VALUE);
        SqlQuery query = engine().query(sql, child);
        ArrowReader reader = UtcTimes.reader(query.executeArrow(child, batchRows), child)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      // Flight's callback backpressure: woken by gRPC's ready and cancel events, no polling
      BackpressureStrategy.CallbackBackpressureStrategy backpressure =
          new BackpressureStrategy.CallbackBackpressureStrategy();
      backpressure.register(listener);
      listener.start(root, reader);
      while (!listener.isCancelled() && reader.loadNextBatch()) {
        if (backpressure.waitForListener(0) != BackpressureStrategy.WaitResult.READY) {
          return;
        }
        listener.putNext();
      }
      listener.completed();
    } catch (IOException e) {
      // DuckDB failed while making a later batch: its message, as an error at the start gives it
      listener.error(
          CallStatus.INVALID_ARGUMENT
              .withDescription("sql: " + e.getMessage())
              .withCause(e)
              .toRuntimeException());
    } catch (RuntimeException e) {
      listener.error(FlightErrors.onWire(status(e)));
    }
  }

  @Override
  public Runnable acceptPutStatement(
      FlightSql.CommandStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return refuse(ackStream);
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      FlightSql.CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return refuse(ackStream);
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      FlightSql.CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        String sql = BoundHandle.query(command.getPreparedStatementHandle());
        List<String> types = parameterTypes(sql);
        List<String> bound = new ArrayList<>();
        while (flightStream.next()) {
          bound.addAll(BoundParameters.bind(engine(), sql, types, flightStream.getRoot()));
        }
        byte[] result =
            FlightSql.DoPutPreparedStatementResult.newBuilder()
                .setPreparedStatementHandle(BoundHandle.encode(sql, bound))
                .build()
                .toByteArray();
        try (ArrowBuf metadata = allocator.buffer(result.length)) {
          metadata.writeBytes(result);
          ackStream.onNext(PutResult.metadata(metadata));
        }
        ackStream.onCompleted();
      } catch (RuntimeException e) {
        ackStream.onError(FlightErrors.onWire(status(e)));
      }
    };
  }

  @Override
  public Runnable acceptPutStatementBulkIngest(
      FlightSql.CommandStatementIngest command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return refuse(ackStream);
  }

  private static Runnable refuse(StreamListener<PutResult> ack) {
    return () ->
        ack.onError(CallStatus.INVALID_ARGUMENT.withDescription(READ_ONLY).toRuntimeException());
  }

  // --- browsing ---

  @Override
  public FlightInfo getFlightInfoSqlInfo(
      FlightSql.CommandGetSqlInfo request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_SQL_INFO_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamSqlInfo(
      FlightSql.CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    sqlInfo.send(command.getInfoList(), listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(
      FlightSql.CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_CATALOGS_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    catalog.sendRows(Schemas.GET_CATALOGS_SCHEMA, List.of(), listener); // tables live in no catalog
  }

  @Override
  public FlightInfo getFlightInfoSchemas(
      FlightSql.CommandGetDbSchemas request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_SCHEMAS_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamSchemas(
      FlightSql.CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    catalog.schemas(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoTables(
      FlightSql.CommandGetTables request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(
        request.getIncludeSchema()
            ? Schemas.GET_TABLES_SCHEMA
            : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
        descriptor,
        request);
  }

  @Override
  public void getStreamTables(
      FlightSql.CommandGetTables command, CallContext context, ServerStreamListener listener) {
    catalog.tables(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(
      FlightSql.CommandGetTableTypes request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_TABLE_TYPES_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    catalog.sendRows(
        Schemas.GET_TABLE_TYPES_SCHEMA, List.<Object[]>of(new Object[] {"TABLE"}), listener);
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(
      FlightSql.CommandGetPrimaryKeys request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_PRIMARY_KEYS_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamPrimaryKeys(
      FlightSql.CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    catalog.sendRows(Schemas.GET_PRIMARY_KEYS_SCHEMA, List.of(), listener);
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(
      FlightSql.CommandGetExportedKeys request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_EXPORTED_KEYS_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamExportedKeys(
      FlightSql.CommandGetExportedKeys command,
      CallContext context,
      ServerStreamListener listener) {
    catalog.sendRows(Schemas.GET_EXPORTED_KEYS_SCHEMA, List.of(), listener);
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(
      FlightSql.CommandGetImportedKeys request, CallContext context, FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_IMPORTED_KEYS_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamImportedKeys(
      FlightSql.CommandGetImportedKeys command,
      CallContext context,
      ServerStreamListener listener) {
    catalog.sendRows(Schemas.GET_IMPORTED_KEYS_SCHEMA, List.of(), listener);
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(
      FlightSql.CommandGetCrossReference request,
      CallContext context,
      FlightDescriptor descriptor) {
    return SqlCatalog.info(Schemas.GET_CROSS_REFERENCE_SCHEMA, descriptor, request);
  }

  @Override
  public void getStreamCrossReference(
      FlightSql.CommandGetCrossReference command,
      CallContext context,
      ServerStreamListener listener) {
    catalog.sendRows(Schemas.GET_CROSS_REFERENCE_SCHEMA, List.of(), listener);
  }

  @Override
  public synchronized void close() {
    if (engine != null) {
      engine.close();
    }
  }
}
