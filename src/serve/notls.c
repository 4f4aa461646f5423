// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Inert stand-ins for the GnuTLS functions libmicrohttpd refers to.
 *
 * Why: folioscope is one static binary (it also runs in the VM guest).
 * Debian's libmicrohttpd.a is built with HTTPS and so needs GnuTLS, whose
 * static archive needs p11-kit, which Debian ships only as a shared
 * library: a static link with the real GnuTLS cannot be completed. We
 * serve plain HTTP and never ask MHD for TLS (no MHD_USE_TLS), so MHD
 * only ever calls gnutls_global_init/deinit from its constructor and
 * destructor; everything else here is unreachable and fails if reached.
 *
 * Hidden visibility: in the static binary these resolve MHD's references;
 * in a dynamically linked program (the unit tests) they are not exported,
 * so libmicrohttpd.so keeps using the real libgnutls.so.
 *
 * If MHD starts calling a GnuTLS function not listed here, the static
 * link fails with an undefined reference: add it here, failing.
 */
#include <stddef.h>
#include <sys/types.h>
#include <stdlib.h>
#include <time.h>

#pragma GCC visibility push(hidden)

#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>

/* MHD's constructor/destructor: nothing to set up without TLS. */
int gnutls_global_init(void)
{
	return 0;
}

void gnutls_global_deinit(void)
{
}

gnutls_alloc_function gnutls_malloc = malloc;

#define NOTLS GNUTLS_E_UNIMPLEMENTED_FEATURE

int gnutls_init(gnutls_session_t *session, unsigned int flags)
{
	return NOTLS;
}

void gnutls_deinit(gnutls_session_t session)
{
}

int gnutls_priority_init(gnutls_priority_t *priority_cache,
			 const char *priorities, const char **err_pos)
{
	return NOTLS;
}

void gnutls_priority_deinit(gnutls_priority_t priority_cache)
{
}

int gnutls_priority_set(gnutls_session_t session, gnutls_priority_t priority)
{
	return NOTLS;
}

int gnutls_certificate_allocate_credentials(
	gnutls_certificate_credentials_t *res)
{
	return NOTLS;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
}

void gnutls_certificate_server_set_request(gnutls_session_t session,
					   gnutls_certificate_request_t req)
{
}

void gnutls_certificate_set_dh_params(gnutls_certificate_credentials_t res,
				      gnutls_dh_params_t dh_params)
{
}

void gnutls_certificate_set_retrieve_function2(
	gnutls_certificate_credentials_t cred,
	gnutls_certificate_retrieve_function2 *func)
{
}

void gnutls_certificate_set_retrieve_function3(
	gnutls_certificate_credentials_t cred,
	gnutls_certificate_retrieve_function3 *func)
{
}

int gnutls_certificate_set_x509_key_mem(gnutls_certificate_credentials_t res,
					const gnutls_datum_t *cert,
					const gnutls_datum_t *key,
					gnutls_x509_crt_fmt_t type)
{
	return NOTLS;
}

int gnutls_certificate_set_x509_key_mem2(gnutls_certificate_credentials_t res,
					 const gnutls_datum_t *cert,
					 const gnutls_datum_t *key,
					 gnutls_x509_crt_fmt_t type,
					 const char *pass, unsigned int flags)
{
	return NOTLS;
}

int gnutls_certificate_set_x509_trust_mem(gnutls_certificate_credentials_t res,
					  const gnutls_datum_t *ca,
					  gnutls_x509_crt_fmt_t type)
{
	return NOTLS;
}

int gnutls_credentials_set(gnutls_session_t session,
			   gnutls_credentials_type_t type, void *cred)
{
	return NOTLS;
}

int gnutls_dh_params_init(gnutls_dh_params_t *dh_params)
{
	return NOTLS;
}

void gnutls_dh_params_deinit(gnutls_dh_params_t dh_params)
{
}

int gnutls_dh_params_import_pkcs3(gnutls_dh_params_t params,
				  const gnutls_datum_t *pkcs3_params,
				  gnutls_x509_crt_fmt_t format)
{
	return NOTLS;
}

int gnutls_psk_allocate_server_credentials(gnutls_psk_server_credentials_t *sc)
{
	return NOTLS;
}

void gnutls_psk_free_server_credentials(gnutls_psk_server_credentials_t sc)
{
}

void gnutls_psk_set_server_credentials_function(
	gnutls_psk_server_credentials_t cred,
	gnutls_psk_server_credentials_function *func)
{
}

int gnutls_alpn_set_protocols(gnutls_session_t session,
			      const gnutls_datum_t *protocols,
			      unsigned int protocols_size, unsigned int flags)
{
	return NOTLS;
}

int gnutls_handshake(gnutls_session_t session)
{
	return NOTLS;
}

int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
	return NOTLS;
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data,
			   size_t data_size)
{
	return NOTLS;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data,
			   size_t data_size)
{
	return NOTLS;
}

size_t gnutls_record_check_pending(gnutls_session_t session)
{
	return 0;
}

int gnutls_record_get_direction(gnutls_session_t session)
{
	return 0;
}

void gnutls_transport_set_int2(gnutls_session_t session, int r, int s)
{
}

void *gnutls_session_get_ptr(gnutls_session_t session)
{
	return NULL;
}

void gnutls_session_set_ptr(gnutls_session_t session, void *ptr)
{
}

gnutls_cipher_algorithm_t gnutls_cipher_get(gnutls_session_t session)
{
	return GNUTLS_CIPHER_UNKNOWN;
}

gnutls_protocol_t gnutls_protocol_get_version(gnutls_session_t session)
{
	return GNUTLS_VERSION_UNKNOWN;
}

const char *gnutls_strerror(int error)
{
	return "TLS is not built into folioscope";
}

#pragma GCC visibility pop
