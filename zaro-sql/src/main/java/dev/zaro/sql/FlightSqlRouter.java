package dev.zaro.sql;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlUtils;

/**
 * One Flight service of two: Flight SQL requests (commands and tickets that are protobuf {@code
 * Any} messages of the {@code arrow.flight.protocol.sql} package, and the Flight SQL actions) go to
 * the Flight SQL producer; everything else (zaro's JSON commands, path descriptors, list_flights,
 * its actions) to zaro's own producer. Closing it closes the Flight SQL producer; zaro's producer
 * belongs to the server.
 */
public final class FlightSqlRouter implements FlightProducer, AutoCloseable {
  private static final String SQL_TYPES = "type.googleapis.com/arrow.flight.protocol.sql.";

  private final FlightProducer flight;
  private final ZaroFlightSqlProducer sql;

  public FlightSqlRouter(FlightProducer flight, ZaroFlightSqlProducer sql) {
    this.flight = flight;
    this.sql = sql;
  }

  /** True for the bytes of a protobuf Any holding a Flight SQL message. */
  static boolean isFlightSql(byte[] bytes) {
    try {
      return Any.parseFrom(bytes).getTypeUrl().startsWith(SQL_TYPES);
    } catch (InvalidProtocolBufferException e) {
      return false;
    }
  }

  private static boolean isFlightSql(FlightDescriptor descriptor) {
    return descriptor.isCommand() && isFlightSql(descriptor.getCommand());
  }

  private static boolean isFlightSqlAction(String type) {
    return FlightSqlUtils.FLIGHT_SQL_ACTIONS.stream().anyMatch(a -> a.getType().equals(type));
  }

  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    (isFlightSql(ticket.getBytes()) ? sql : flight).getStream(context, ticket, listener);
  }

  @Override
  public void listFlights(
      CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    flight.listFlights(context, criteria, listener);
  }

  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    return (isFlightSql(descriptor) ? sql : flight).getFlightInfo(context, descriptor);
  }

  @Override
  public SchemaResult getSchema(CallContext context, FlightDescriptor descriptor) {
    return (isFlightSql(descriptor) ? sql : flight).getSchema(context, descriptor);
  }

  @Override
  public Runnable acceptPut(
      CallContext context, FlightStream flightStream, StreamListener<PutResult> ackStream) {
    return (isFlightSql(flightStream.getDescriptor()) ? sql : flight)
        .acceptPut(context, flightStream, ackStream);
  }

  @Override
  public void doExchange(CallContext context, FlightStream reader, ServerStreamListener writer) {
    (isFlightSql(reader.getDescriptor()) ? sql : flight).doExchange(context, reader, writer);
  }

  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    (isFlightSqlAction(action.getType()) ? sql : flight).doAction(context, action, listener);
  }

  /** zaro's actions and the Flight SQL ones this read-only service supports. */
  @Override
  public void listActions(CallContext context, StreamListener<ActionType> listener) {
    List<ActionType> all = new ArrayList<>();
    flight.listActions(
        context,
        new StreamListener<>() {
          @Override
          public void onNext(ActionType val) {
            all.add(val);
          }

          @Override
          public void onError(Throwable t) {
            listener.onError(t);
          }

          @Override
          public void onCompleted() {
            all.forEach(listener::onNext);
            listener.onNext(FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_STATEMENT);
            listener.onNext(FlightSqlUtils.FLIGHT_SQL_CLOSE_PREPARED_STATEMENT);
            listener.onCompleted();
          }
        });
  }

  @Override
  public void close() {
    sql.close();
  }
}
