"""Signature Version 4 vectors for S3SignerTest, computed by botocore (independent of the AWS SDK
for Java): GETs signed at 2026-01-02T03:04:05Z for service s3, region eu-west-1, an empty payload.
Run with botocore installed: python3 make_vectors.py > vectors.txt (tab-separated: URL, session token, Authorization)"""
import datetime
from unittest import mock

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
CASES = [
    (None, "http://127.0.0.1:9000/bucket/pre/a%20b/c%3Ad%2Be"),
    ("SESSIONTOKEN", "http://localhost/bkt/zarr.json"),
]
for token, url in CASES:
    req = AWSRequest(method="GET", url=url)
    now = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    with mock.patch("botocore.auth.get_current_datetime", return_value=now):
        S3SigV4Auth(Credentials(KEY, SECRET, token), "s3", "eu-west-1").add_auth(req)
    print("\t".join([url, token or "-", req.headers["Authorization"]]))
