/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "esd-np-ca.h"
#include "esd-np-io.h"

/*
 * The certificate authority of credential masking. A masked request over
 * HTTPS is answered by the proxy itself, with a certificate for the
 * destination signed by this authority, so that it can put the real secret
 * where the command wrote its placeholder before the request goes on, over
 * a TLS connection of its own that checks the destination's certificate
 * against the daemon's trust store.
 *
 * The authority is made when the first masked process starts, lives in
 * memory as long as the plugin (its key is never written anywhere), and is
 * trusted by the command alone: its certificate is appended to the
 * system's roots in a bundle that the command's CA variables name
 * (SSL_CERT_FILE, CURL_CA_BUNDLE, ...). Certificates for destinations are
 * made on demand, kept for a day, ESD_NP_CA_MAX_HOSTS at most.
 *
 * The bundle's directory holds a `lock` the daemon keeps locked (flock())
 * while it lives: a directory of this user whose lock nobody holds is a
 * killed daemon's, removed when the next authority is made.
 */

#define ESD_NP_CA_MAX_HOSTS 512
#define ESD_NP_CA_LEAF_DAYS 7
#define ESD_NP_CA_LEAF_KEEP (G_GINT64_CONSTANT(86400) * G_USEC_PER_SEC)
#define ESD_NP_CA_DAYS	    365

G_DEFINE_AUTOPTR_CLEANUP_FUNC(EVP_PKEY, EVP_PKEY_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(X509, X509_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(BIO, BIO_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SSL_CTX, SSL_CTX_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(X509_EXTENSION, X509_EXTENSION_free)

struct _EsdNpCa {
	gint refs; /* atomic */
	EVP_PKEY *key;
	X509 *cert;
	EVP_PKEY *leaf_key; /* one key for every destination's certificate */
	SSL_CTX *client;    /* to destinations */
	gchar *dir;
	gchar *bundle;
	GMutex lock;
	GHashTable *leaves; /* host → EsdNpCaLeaf, under lock */
	gboolean removed;   /* the bundle, under lock */
	gint lock_fd;	    /* the directory's lock, held, or -1 */
};

typedef struct {
	SSL_CTX *context;
	gint64 made;
} EsdNpCaLeaf;

static void
esd_np_ca_leaf_free(gpointer data)
{
	EsdNpCaLeaf *leaf = data;

	SSL_CTX_free(leaf->context);
	g_free(leaf);
}

static gboolean
esd_np_ca_fail(GError **error, const gchar *what)
{
	gchar text[256] = "";

	ERR_error_string_n(ERR_get_error(), text, sizeof(text));
	ERR_clear_error();
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", what, text);
	return FALSE;
}

/* an extension of @cert, from OpenSSL's configuration syntax */
static gboolean
esd_np_ca_extend(X509 *cert, X509 *issuer, gint nid, const gchar *value)
{
	X509V3_CTX ctx;
	g_autoptr(X509_EXTENSION) ext = NULL;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	return ext != NULL && X509_add_ext(cert, ext, -1) == 1;
}

/* a certificate of @key, with a random serial, valid from an hour ago for @days */
static X509 *
esd_np_ca_certificate(EVP_PKEY *key, const gchar *common_name, glong days)
{
	g_autoptr(X509) cert = X509_new();
	guint8 serial[16];
	BIGNUM *number;
	X509_NAME *name = X509_get_subject_name(cert);
	gboolean ok;

	if (RAND_bytes(serial, sizeof(serial)) != 1)
		return NULL;
	serial[0] &= 0x7f; /* positive */
	number = BN_bin2bn(serial, sizeof(serial), NULL);
	ok = number != NULL && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert)) != NULL;
	BN_free(number);
	if (!ok || X509_set_version(cert, 2) != 1 ||
	    X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(cert), days * 86400) == NULL ||
	    X509_set_pubkey(cert, key) != 1)
		return NULL;
	/* a common name is at most 64 characters; the subject alternative name is what counts */
	if (strlen(common_name) <= 64 && X509_NAME_add_entry_by_txt(name,
								    "CN",
								    MBSTRING_UTF8,
								    (const guchar *)common_name,
								    -1,
								    -1,
								    0) != 1)
		return NULL;
	return g_steal_pointer(&cert);
}

static gboolean
esd_np_ca_make_authority(EsdNpCa *self, GError **error)
{
	g_autofree gchar *name = NULL;
	guint8 id[4];

	self->key = EVP_EC_gen("P-256");
	self->leaf_key = EVP_EC_gen("P-256");
	if (self->key == NULL || self->leaf_key == NULL)
		return esd_np_ca_fail(error, "cannot make a key");
	/* a name of its own: two daemons' authorities are told apart */
	if (RAND_bytes(id, sizeof(id)) != 1)
		return esd_np_ca_fail(error, "no random bytes");
	name = g_strdup_printf("execserverd network proxy CA %02x%02x%02x%02x",
			       id[0],
			       id[1],
			       id[2],
			       id[3]);
	self->cert = esd_np_ca_certificate(self->key, name, ESD_NP_CA_DAYS);
	if (self->cert == NULL ||
	    X509_set_issuer_name(self->cert, X509_get_subject_name(self->cert)) != 1 ||
	    !esd_np_ca_extend(self->cert,
			      self->cert,
			      NID_basic_constraints,
			      "critical,CA:TRUE,pathlen:0") ||
	    !esd_np_ca_extend(self->cert,
			      self->cert,
			      NID_key_usage,
			      "critical,keyCertSign,cRLSign") ||
	    !esd_np_ca_extend(self->cert, self->cert, NID_subject_key_identifier, "hash") ||
	    X509_sign(self->cert, self->key, EVP_sha256()) <= 0)
		return esd_np_ca_fail(error, "cannot make the authority's certificate");
	return TRUE;
}

/* the bundle directories in @parent of this user's daemons that were killed */
static void
esd_np_ca_sweep(const gchar *parent)
{
	g_autoptr(GDir) dir = g_dir_open(parent, 0, NULL);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = NULL;
		g_autofree gchar *lock = NULL;
		g_autoptr(GDir) inner = NULL;
		const gchar *entry;
		struct stat st;
		gint fd;

		if (!g_str_has_prefix(name, "execserverd-ca-"))
			continue;
		path = g_build_filename(parent, name, NULL);
		lock = g_build_filename(path, "lock", NULL);
		/* a directory of this user's, not a link, with a lock nobody holds */
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
			continue;
		fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			close(fd);
			continue;
		}
		inner = g_dir_open(path, 0, NULL);
		while (inner != NULL && (entry = g_dir_read_name(inner)) != NULL) {
			g_autofree gchar *file = g_build_filename(path, entry, NULL);
			if (g_unlink(file) != 0)
				g_debug("%s: %s", file, g_strerror(errno));
		}
		close(fd);
		if (g_rmdir(path) == 0)
			g_info("removed %s, left by a daemon that was killed", path);
	}
}

/* the system's roots and the authority, in a file the command can read */
static gboolean
esd_np_ca_write_bundle(EsdNpCa *self, const gchar *parent, GError **error)
{
	const gchar *roots = g_getenv(X509_get_default_cert_file_env());
	g_autofree gchar *system = NULL;
	g_autofree gchar *template = NULL;
	g_autoptr(BIO) pem = BIO_new(BIO_s_mem());
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	gchar *data = NULL;
	glong len;

	if (roots == NULL || roots[0] == '\0')
		roots = X509_get_default_cert_file();
	/* without system roots the bundle holds the authority alone */
	if (!g_file_get_contents(roots, &system, NULL, NULL))
		g_debug("no system roots at %s", roots);
	if (system != NULL) {
		g_string_append(text, system);
		if (text->len > 0 && text->str[text->len - 1] != '\n')
			g_string_append_c(text, '\n');
	}
	if (pem == NULL || PEM_write_bio_X509(pem, self->cert) != 1)
		return esd_np_ca_fail(error, "cannot write the authority's certificate");
	len = BIO_get_mem_data(pem, &data);
	g_string_append_len(text, data, len);
	g_checksum_update(sum, (const guchar *)data, (gssize)len);

	if (parent == NULL)
		parent = g_get_tmp_dir();
	template = g_build_filename(parent, "execserverd-ca-XXXXXX", NULL);
	if (g_mkdir_with_parents(parent, 0700) != 0 || g_mkdtemp(template) == NULL) {
		esd_np_io_set_error(error, errno, template);
		return FALSE;
	}
	self->dir = g_steal_pointer(&template);
	{
		g_autofree gchar *lock = g_build_filename(self->dir, "lock", NULL);

		self->lock_fd =
		    open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (self->lock_fd < 0 || flock(self->lock_fd, LOCK_EX | LOCK_NB) != 0) {
			esd_np_io_set_error(error, errno, lock);
			return FALSE;
		}
	}
	esd_np_ca_sweep(parent);
	/* a sandboxed command may run as another user: the certificates are public */
	if (g_chmod(self->dir, 0755) != 0)
		g_debug("chmod %s: %s", self->dir, g_strerror(errno));
	self->bundle =
	    g_strdup_printf("%s/ca-bundle-%s.pem", self->dir, g_checksum_get_string(sum));
	if (!g_file_set_contents_full(self->bundle,
				      text->str,
				      (gssize)text->len,
				      G_FILE_SET_CONTENTS_CONSISTENT,
				      0644,
				      error))
		return FALSE;
	return TRUE;
}

static gint
esd_np_ca_alpn_cb(SSL *ssl,
		  const guchar **out,
		  guchar *out_len,
		  const guchar *in,
		  guint in_len,
		  void *data)
{
	static const guchar http11[] = "\x08http/1.1";
	guchar *selected = NULL;

	/* the requests are read as HTTP/1.x: a client that offers only h2 gets no protocol */
	if (SSL_select_next_proto(&selected, out_len, http11, sizeof(http11) - 1, in, in_len) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = selected;
	return SSL_TLSEXT_ERR_OK;
}

/**
 * esd_np_ca_new:
 * @parent: (nullable): where to make the bundle's directory; %NULL: the
 *   temporary directory
 * @error: why there is no authority
 *
 * Returns: (transfer full) (nullable): a new authority, its bundle written
 */
EsdNpCa *
esd_np_ca_new(const gchar *parent, GError **error)
{
	EsdNpCa *self = g_new0(EsdNpCa, 1);
	static const guchar http11[] = "\x08http/1.1";

	self->refs = 1;
	self->lock_fd = -1;
	g_mutex_init(&self->lock);
	self->leaves = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, esd_np_ca_leaf_free);
	if (!esd_np_ca_make_authority(self, error) ||
	    !esd_np_ca_write_bundle(self, parent, error)) {
		esd_np_ca_unref(self);
		return NULL;
	}
	self->client = SSL_CTX_new(TLS_client_method());
	if (self->client == NULL ||
	    SSL_CTX_set_min_proto_version(self->client, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_set_default_verify_paths(self->client) != 1 ||
	    SSL_CTX_set_alpn_protos(self->client, http11, sizeof(http11) - 1) != 0) {
		esd_np_ca_fail(error, "cannot make a TLS client context");
		esd_np_ca_unref(self);
		return NULL;
	}
	SSL_CTX_set_verify(self->client, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_options(self->client, SSL_OP_NO_RENEGOTIATION);
	return self;
}

EsdNpCa *
esd_np_ca_ref(EsdNpCa *self)
{
	g_atomic_int_inc(&self->refs);
	return self;
}

/**
 * esd_np_ca_remove_bundle:
 * @self: an authority
 *
 * Removes the bundle and its directory, once: the daemon is stopping, and
 * the commands that used it with it. Thread-safe.
 */
void
esd_np_ca_remove_bundle(EsdNpCa *self)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	if (self->removed)
		return;
	self->removed = TRUE;
	if (self->bundle != NULL && g_unlink(self->bundle) != 0 && errno != ENOENT)
		g_warning("%s: %s", self->bundle, g_strerror(errno));
	if (self->dir != NULL) {
		g_autofree gchar *lock = g_build_filename(self->dir, "lock", NULL);
		if (g_unlink(lock) != 0 && errno != ENOENT)
			g_warning("%s: %s", lock, g_strerror(errno));
		if (g_rmdir(self->dir) != 0)
			g_warning("%s: %s", self->dir, g_strerror(errno));
	}
	if (self->lock_fd >= 0) {
		close(self->lock_fd);
		self->lock_fd = -1;
	}
}

void
esd_np_ca_unref(EsdNpCa *self)
{
	if (self == NULL || !g_atomic_int_dec_and_test(&self->refs))
		return;
	esd_np_ca_remove_bundle(self);
	g_free(self->bundle);
	g_free(self->dir);
	g_hash_table_unref(self->leaves);
	g_mutex_clear(&self->lock);
	SSL_CTX_free(self->client);
	X509_free(self->cert);
	EVP_PKEY_free(self->key);
	EVP_PKEY_free(self->leaf_key);
	g_free(self);
}

/**
 * esd_np_ca_get_bundle:
 * @self: an authority
 *
 * Returns: the path of the bundle: the system's roots and the authority
 */
const gchar *
esd_np_ca_get_bundle(EsdNpCa *self)
{
	return self->bundle;
}

/* a name of a certificate: letters, digits, `-`, `_` and dots, or an address */
static gchar *
esd_np_ca_alt_name(const gchar *host)
{
	g_autoptr(GInetAddress) address = g_inet_address_new_from_string(host);

	if (address != NULL)
		return g_strdup_printf("IP:%s", host);
	if (host[0] == '\0' || strlen(host) > 253)
		return NULL;
	for (const gchar *p = host; *p != '\0'; p++) {
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '.' && *p != '_')
			return NULL;
	}
	return g_strdup_printf("DNS:%s", host);
}

static SSL_CTX *
esd_np_ca_make_leaf(EsdNpCa *self, const gchar *host, GError **error)
{
	g_autofree gchar *alt = esd_np_ca_alt_name(host);
	g_autoptr(X509) cert = NULL;
	g_autoptr(SSL_CTX) context = NULL;

	if (alt == NULL) {
		g_set_error(error,
			    G_IO_ERROR,
			    G_IO_ERROR_INVALID_ARGUMENT,
			    "no certificate can name %s",
			    host);
		return NULL;
	}
	cert = esd_np_ca_certificate(self->leaf_key, host, ESD_NP_CA_LEAF_DAYS);
	if (cert == NULL || X509_set_issuer_name(cert, X509_get_subject_name(self->cert)) != 1 ||
	    !esd_np_ca_extend(cert, self->cert, NID_basic_constraints, "critical,CA:FALSE") ||
	    !esd_np_ca_extend(cert, self->cert, NID_key_usage, "critical,digitalSignature") ||
	    !esd_np_ca_extend(cert, self->cert, NID_ext_key_usage, "serverAuth") ||
	    !esd_np_ca_extend(cert, self->cert, NID_subject_alt_name, alt) ||
	    !esd_np_ca_extend(cert, self->cert, NID_subject_key_identifier, "hash") ||
	    !esd_np_ca_extend(cert, self->cert, NID_authority_key_identifier, "keyid:always") ||
	    X509_sign(cert, self->key, EVP_sha256()) <= 0) {
		esd_np_ca_fail(error, "cannot make a certificate");
		return NULL;
	}
	context = SSL_CTX_new(TLS_server_method());
	if (context == NULL || SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_use_certificate(context, cert) != 1 ||
	    SSL_CTX_use_PrivateKey(context, self->leaf_key) != 1) {
		esd_np_ca_fail(error, "cannot make a TLS server context");
		return NULL;
	}
	SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_alpn_select_cb(context, esd_np_ca_alpn_cb, NULL);
	return g_steal_pointer(&context);
}

/**
 * esd_np_ca_server_context:
 * @self: an authority
 * @host: a destination, as the policy normalised it
 * @error: why there is none
 *
 * The context the proxy answers a client with, as @host: a certificate for
 * @host signed by the authority. Thread-safe.
 *
 * Returns: (transfer full) (nullable): a context; SSL_CTX_free() it
 */
SSL_CTX *
esd_np_ca_server_context(EsdNpCa *self, const gchar *host, GError **error)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	EsdNpCaLeaf *leaf = g_hash_table_lookup(self->leaves, host);
	gint64 now = g_get_monotonic_time();
	SSL_CTX *context;

	if (leaf != NULL && now - leaf->made < ESD_NP_CA_LEAF_KEEP) {
		SSL_CTX_up_ref(leaf->context);
		return leaf->context;
	}
	context = esd_np_ca_make_leaf(self, host, error);
	if (context == NULL)
		return NULL;
	if (g_hash_table_size(self->leaves) >= ESD_NP_CA_MAX_HOSTS)
		g_hash_table_remove_all(self->leaves);
	leaf = g_new0(EsdNpCaLeaf, 1);
	leaf->context = context;
	leaf->made = now;
	g_hash_table_replace(self->leaves, g_strdup(host), leaf);
	SSL_CTX_up_ref(context);
	return context;
}

/**
 * esd_np_ca_client_context:
 * @self: an authority
 *
 * Returns: (transfer none): the context of connections to destinations:
 *   TLS 1.2 or later, certificates checked against the daemon's trust
 *   store (OpenSSL's defaults, `SSL_CERT_FILE` and `SSL_CERT_DIR` included)
 */
SSL_CTX *
esd_np_ca_client_context(EsdNpCa *self)
{
	return self->client;
}
