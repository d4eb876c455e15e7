#!/bin/sh
# A self-signed certificate for loopback TLS in tests and benchmarks (127.0.0.1, ::1 and
# localhost), made with openssl and the JDK's keytool. Never trusted outside the test JVMs that
# name loopback-trust.p12 as their trust store. Valid for 100 years from its making.
#   loopback.crt / loopback.key   PEM, for servers written in Python (latency_server.py, moto_server)
#   loopback-key.p12              the key and certificate, for Java test servers (password: zarotest)
#   loopback-trust.p12            the certificate alone as a trusted entry (password: zarotest)
set -eu
cd "$(dirname "$0")"
rm -f loopback.crt loopback.key loopback-key.p12 loopback-trust.p12
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
  -subj "/CN=zaro loopback test" \
  -addext "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost" \
  -keyout loopback.key -out loopback.crt
openssl pkcs12 -export -inkey loopback.key -in loopback.crt -name loopback \
  -passout pass:zarotest -out loopback-key.p12
keytool -importcert -noprompt -alias loopback -file loopback.crt -storetype PKCS12 \
  -keystore loopback-trust.p12 -storepass zarotest
