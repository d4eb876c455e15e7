package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.spi.Listing;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replies {@link ListPage} refuses with an error naming the request (moto's real replies, keys with
 * any character and pages, are read in {@link S3StoreTest}, fault cases in {@link
 * S3StoreFaultTest}).
 */
class ListPageTest {
  private static final String NS = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "", // an empty body
        "not xml",
        "<Error><Code>AccessDenied</Code></Error>", // another document
        "<ListBucketResult" + NS + "><IsTruncated>true</IsTruncated></ListBucketResult>",
        "<ListBucketResult" + NS + "><Contents><Key>a<b/></Key></Contents></ListBucketResult>",
        // a document type declaration: refused, never read (no entity reaches a key)
        "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
            + "<ListBucketResult"
            + NS
            + "><Contents><Key>&e;</Key></Contents></ListBucketResult>",
        "<ListBucketResult" + NS + "><Contents><Key>a</Key></Contents>", // cut short
      })
  void repliesThatAreNotAListingAreErrorsNamingTheRequest(String body) {
    StoreException e =
        assertThrows(
            StoreException.class,
            () -> ListPage.parse(body.getBytes(StandardCharsets.UTF_8), "the listing of 'p/'"));
    assertTrue(
        e.getMessage()
            .startsWith("the listing of 'p/': the reply is not an S3 ListObjectsV2 result"),
        e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void keysAreDecodedOnlyWhenTheReplySaysTheyAreEncoded(boolean encoded) {
    String xml =
        "<ListBucketResult"
            + NS
            + ">"
            + (encoded ? "<EncodingType>url</EncodingType>" : "")
            + "<IsTruncated>true</IsTruncated><Contents><Key>a+b%2Fc</Key><Size>1</Size>"
            + "</Contents><NextContinuationToken>t+1/=</NextContinuationToken></ListBucketResult>";
    Listing.Page page = ListPage.parse(xml.getBytes(StandardCharsets.UTF_8), "the listing");
    assertEquals(encoded ? "a b/c" : "a+b%2Fc", page.keys().get(0));
    assertEquals("t+1/=", page.next()); // a token is never encoded
  }
}
