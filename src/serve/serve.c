// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /metrics over HTTP with libmicrohttpd. We bind and listen ourselves and
 * hand MHD the socket, so a port in use or a bad address is reported with
 * the kernel's own error instead of MHD's NULL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>
#include "report/report.h"
#include "serve/serve.h"
#include "util/err.h"
#include "util/util.h"

#define OM_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct serve {
	struct MHD_Daemon *d;
	serve_fill_fn fill, page_fill;
	int refresh;
	void *ctx;
	/* Scratch model for scrapes; MHD's one thread is its only user. */
	struct fs_report *r;
	unsigned short port;
	char url[96];
};

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char host[INET6_ADDRSTRLEN];
	unsigned short port;
	bool loopback;
};

static int parse_port(const char *s, unsigned short *port)
{
	unsigned long v;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v > 65535)
		return -EINVAL;
	*port = (unsigned short)v;
	return 0;
}

/* "PORT", ":PORT", "ADDR:PORT", "[ADDR6]:PORT"; no address = 127.0.0.1. */
static int parse_addr(const char *in, struct addr *a)
{
	char host[INET6_ADDRSTRLEN + 2] = "";
	const char *port, *colon;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;
	bool v6 = false;
	size_t n;

	memset(a, 0, sizeof(*a));
	if (in[0] == '[') {
		colon = strchr(in, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		n = colon - in - 1;
		port = colon + 2;
		v6 = true;
	} else {
		colon = strrchr(in, ':');
		/* A bare v6 address is ambiguous: where does the port start? */
		if (colon && memchr(in, ':', colon - in))
			return -EINVAL;
		n = colon ? (size_t)(colon - in) : 0;
		port = colon ? colon + 1 : in;
	}
	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, in + (v6 ? 1 : 0), n);
	host[n] = '\0';
	if (parse_port(port, &a->port))
		return -EINVAL;
	if (!host[0] || !strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");

	if (!v6 && inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(a->port);
		a->len = sizeof(*in4);
		a->loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
	} else if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(a->port);
		a->len = sizeof(*in6);
		a->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
			      (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
			       in6->sin6_addr.s6_addr[12] == 127);
	} else {
		return -EINVAL;
	}
	snprintf(a->host, sizeof(a->host), "%s", host);
	return 0;
}

static int listen_on(struct addr *a, int *fdp)
{
	struct sockaddr_storage got;
	socklen_t len = sizeof(got);
	int fd, one = 1, err;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A restart must not wait out TIME_WAIT; a live listener still
	 * makes bind() fail with EADDRINUSE. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (a->ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&a->ss, a->len) || listen(fd, 32) ||
	    getsockname(fd, (struct sockaddr *)&got, &len)) {
		err = -errno;
		close(fd);
		return err;
	}
	a->port = ntohs(got.ss_family == AF_INET6
				? ((struct sockaddr_in6 *)&got)->sin6_port
				: ((struct sockaddr_in *)&got)->sin_port);
	*fdp = fd;
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     const char *type, char *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	/* MHD owns body from here on, and frees it with free(). */
	resp = MHD_create_response_from_buffer_with_free_callback(len, body,
								  free);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					"GET, HEAD");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn,
				  unsigned int code, const char *text)
{
	char *body = strdup(text);

	if (!body)
		return MHD_NO;
	return reply(conn, code, "text/plain; charset=utf-8", body,
		     strlen(body));
}

/* Prometheus asks for OpenMetrics in Accept; curl and browsers do not. */
static bool wants_openmetrics(struct MHD_Connection *conn)
{
	const char *accept =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");

	return accept && strstr(accept, "application/openmetrics-text");
}

/* What a URL shows: /metrics, /report.html and /report.json differ only in
 * which fill they collect with, how they format and what type they send. */
enum view { VIEW_METRICS, VIEW_HTML, VIEW_JSON };

static const struct view_info {
	const char *url;
	const char *what; /* for "cannot format the ..." */
	const char *type;
} views[] = {
	[VIEW_METRICS] = { "/metrics", "metrics", PROM_TYPE },
	[VIEW_HTML] = { "/report.html", "report", "text/html; charset=utf-8" },
	[VIEW_JSON] = { "/report.json", "report",
			"application/json; charset=utf-8" },
};

static int format_view(FILE *f, const struct serve *s, enum view v, bool om)
{
	switch (v) {
	case VIEW_METRICS:
		return report__openmetrics(f, s->r, om);
	case VIEW_HTML:
		return report__html_refresh(f, s->r, s->refresh);
	case VIEW_JSON:
		return report__json_stream(f, s->r);
	}
	return -EINVAL;
}

/* Collects a fresh model and renders it whole: a scrape or a page load
 * never sees half of one snapshot and half of the next. */
static enum MHD_Result render(struct serve *s, struct MHD_Connection *conn,
			      enum view v)
{
	serve_fill_fn fill =
		v != VIEW_METRICS && s->page_fill ? s->page_fill : s->fill;
	bool om = v == VIEW_METRICS && wants_openmetrics(conn);
	char *body = NULL, msg[160];
	size_t len = 0;
	FILE *f;
	int err;

	model__init(s->r);
	err = fill(s->ctx, s->r);
	if (err) {
		model__free(s->r);
		snprintf(msg, sizeof(msg), "folioscope: cannot collect: %s\n",
			 strerror(-err));
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
	}
	f = open_memstream(&body, &len);
	if (f) {
		err = format_view(f, s, v, om);
		if (fclose(f))
			err = -ENOMEM;
	}
	model__free(s->r);
	if (!f)
		return MHD_NO;
	if (err) {
		free(body);
		snprintf(msg, sizeof(msg), "folioscope: cannot format the %s\n",
			 views[v].what);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
	}
	return reply(conn, MHD_HTTP_OK, om ? OM_TYPE : views[v].type, body,
		     len);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct serve *s = cls;

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "only GET and HEAD\n");
	for (size_t v = 0; v < ARRAY_SIZE(views); v++)
		if (!strcmp(url, views[v].url))
			return render(s, conn, (enum view)v);
	if (!strcmp(url, "/"))
		return reply_text(conn, MHD_HTTP_OK,
				  "folioscope: metrics are at /metrics, the "
				  "report at /report.html and /report.json\n");
	return reply_text(conn, MHD_HTTP_NOT_FOUND,
			  "not found; try /metrics, /report.html or "
			  "/report.json\n");
}

int serve__start(struct serve **sp, const char *addr_port,
		 const struct serve_opts *o, serve_fill_fn fill, void *ctx)
{
	struct serve *s = NULL;
	const char *why = NULL;
	struct addr a;
	int fd = -1, err;

	err = parse_addr(addr_port, &a);
	if (err) {
		why = "expected PORT, ADDR:PORT or [ADDR6]:PORT with a numeric "
		      "address";
		goto cleanup;
	}
	if (!a.loopback && !(o && o->allow_remote)) {
		err = -EACCES;
		why = "not a loopback address (add --serve-any to expose "
		      "the metrics to other hosts)";
		goto cleanup;
	}
	s = calloc(1, sizeof(*s));
	if (s)
		s->r = calloc(1, sizeof(*s->r));
	if (!s || !s->r) {
		err = -ENOMEM;
		goto cleanup;
	}
	s->fill = fill;
	s->page_fill = o ? o->page_fill : NULL;
	s->refresh = o ? o->refresh : 0;
	s->ctx = ctx;
	err = listen_on(&a, &fd);
	if (err)
		goto cleanup;
	s->port = a.port;
	snprintf(s->url, sizeof(s->url), "http://%s%s%s:%u/metrics",
		 a.ss.ss_family == AF_INET6 ? "[" : "", a.host,
		 a.ss.ss_family == AF_INET6 ? "]" : "", a.port);
	/* One internal thread: scrapes run one at a time, as fill wants. */
	s->d = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, handle, s,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT, 64u,
		MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!s->d) {
		err = -EIO;
		why = "the HTTP server did not start";
		goto cleanup;
	}
	fd = -1; /* MHD closes it in MHD_stop_daemon */
	*sp = s;
	s = NULL;

cleanup:
	if (fd >= 0)
		close(fd);
	if (s) {
		free(s->r);
		free(s);
	}
	if (err)
		err__print(NULL, 0, "cannot serve on %s: %s", addr_port,
			   why ? why : strerror(-err));
	return err;
}

unsigned short serve__port(const struct serve *s)
{
	return s->port;
}

const char *serve__url(const struct serve *s)
{
	return s->url;
}

void serve__stop(struct serve *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	free(s->r);
	free(s);
}
