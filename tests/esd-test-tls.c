/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#include "config.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "esd-test-tls.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EVP_PKEY, EVP_PKEY_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(X509, X509_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BIO, BIO_free)

/**
 * esd_test_make_certificate:
 * @cert_path: where the certificate goes, in PEM
 * @key_path: where its private key goes, in PEM
 *
 * Writes a self-signed P-256 certificate for localhost, valid for a day.
 */
void
esd_test_make_certificate(const gchar *cert_path, const gchar *key_path)
{
	g_autoptr(EVP_PKEY) key = EVP_EC_gen("P-256");
	g_autoptr(X509) cert = X509_new();
	g_autoptr(BIO) cert_out = BIO_new_file(cert_path, "w");
	g_autoptr(BIO) key_out = BIO_new_file(key_path, "w");
	X509_NAME *name;

	g_assert_nonnull(key);
	g_assert_nonnull(cert_out);
	g_assert_nonnull(key_out);
	g_assert_true(X509_set_version(cert, 2));
	g_assert_true(ASN1_INTEGER_set(X509_get_serialNumber(cert), 1));
	g_assert_nonnull(X509_gmtime_adj(X509_getm_notBefore(cert), -3600));
	g_assert_nonnull(X509_gmtime_adj(X509_getm_notAfter(cert), 86400));
	g_assert_true(X509_set_pubkey(cert, key));
	name = X509_get_subject_name(cert);
	g_assert_true(X509_NAME_add_entry_by_txt(name,
						 "CN",
						 MBSTRING_ASC,
						 (const guchar *)"localhost",
						 -1,
						 -1,
						 0));
	g_assert_true(X509_set_issuer_name(cert, name));
	g_assert_cmpint(X509_sign(cert, key, EVP_sha256()), >, 0);
	g_assert_true(PEM_write_bio_X509(cert_out, cert));
	g_assert_true(PEM_write_bio_PrivateKey(key_out, key, NULL, NULL, 0, NULL, NULL));
}
