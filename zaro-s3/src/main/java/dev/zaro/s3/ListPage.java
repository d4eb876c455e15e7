package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.Listing;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Reads one page of an S3 {@code ListObjectsV2} reply ({@code <ListBucketResult>}) that {@link
 * S3Store} fetched through zaro's client, as a {@link Listing.Page}: the objects' keys, the
 * subdirectories of a listing by directory ({@code delimiter=/}: {@code <CommonPrefixes>}) and the
 * token of the next page. Keys and prefixes come URL-encoded when the reply says {@code
 * <EncodingType>url</EncodingType>} (the store asks for it, so that keys with characters XML 1.0
 * cannot carry still list) and are decoded as the SDK decodes them. Document type declarations and
 * external entities are refused.
 */
final class ListPage {
  private ListPage() {}

  private static final XMLInputFactory XML = factory();

  private static XMLInputFactory factory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  /**
   * Reads a {@code ListObjectsV2} reply's body.
   *
   * @param what the request, for messages
   * @throws StoreException naming {@code what} when the body is not such a reply, or says it is
   *     truncated without a token to go on from
   */
  static Listing.Page parse(byte[] body, String what) {
    List<String> keys = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    String next = null;
    boolean truncated = false;
    boolean encoded = false;
    try {
      XMLStreamReader r = XML.createXMLStreamReader(new ByteArrayInputStream(body));
      try {
        r.nextTag();
        if (!r.getLocalName().equals("ListBucketResult")) {
          throw notAListing(what, "its root element is <" + r.getLocalName() + ">");
        }
        int depth = 1;
        boolean inContents = false;
        boolean inPrefixes = false;
        while (depth > 0) {
          int event = r.next();
          if (event == XMLStreamConstants.END_ELEMENT) {
            depth--;
            if (depth == 1) {
              inContents = false;
              inPrefixes = false;
            }
          } else if (event == XMLStreamConstants.START_ELEMENT) {
            String element = r.getLocalName();
            if (depth == 1 && element.equals("Contents")) {
              inContents = true;
              depth++;
            } else if (depth == 1 && element.equals("CommonPrefixes")) {
              inPrefixes = true;
              depth++;
            } else if (depth == 2 && inContents && element.equals("Key")) {
              keys.add(r.getElementText()); // consumes its end tag
            } else if (depth == 2 && inPrefixes && element.equals("Prefix")) {
              prefixes.add(r.getElementText());
            } else if (depth == 1 && element.equals("IsTruncated")) {
              truncated = r.getElementText().strip().equals("true");
            } else if (depth == 1 && element.equals("NextContinuationToken")) {
              next = r.getElementText().strip();
            } else if (depth == 1 && element.equals("EncodingType")) {
              encoded = r.getElementText().strip().equals("url");
            } else {
              depth++;
            }
          }
        }
      } finally {
        r.close();
      }
    } catch (XMLStreamException | IllegalStateException e) {
      throw notAListing(what, e.getMessage());
    }
    if (truncated && (next == null || next.isEmpty())) {
      throw notAListing(what, "it says more keys follow but gives no continuation token");
    }
    if (encoded) {
      keys.replaceAll(SdkHttpUtils::urlDecode);
      prefixes.replaceAll(SdkHttpUtils::urlDecode);
    }
    return new Listing.Page(List.copyOf(keys), List.copyOf(prefixes), truncated ? next : null);
  }

  private static StoreException notAListing(String what, String why) {
    return new StoreException(what + ": the reply is not an S3 ListObjectsV2 result: " + why);
  }
}
