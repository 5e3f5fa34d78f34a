/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
/*
 * The reading end of scripts/bench-http.py's stream workload: reads the
 * bodyDelta messages of one streamed http/request as fast as it can, over
 * stdio (the server's stdout on fd 0, its stdin on fd 1) or an upgraded
 * WebSocket (fd 0 both ways), and counts the decoded bytes from the base64
 * lengths without decoding. Prints "BYTES DELTAS" on stderr at the final
 * frame (stdout may be the server's stdin).
 *
 *   bench-http-client stdio|ws REQUEST_JSON
 *
 * With N after the request, it sends the request (a small GET, `"id":1`) N
 * times instead, one after another, each with the id 1, and prints the
 * median and 90th percentile of the round trips in microseconds.
 *
 *   bench-http-client stdio|ws REQUEST_JSON N
 *
 * `direct PORT N` sends N small GETs straight to the loopback server on
 * PORT over one keep-alive connection and prints the same percentiles: the
 * floor of an exec-server's round trip, without its transport.
 *
 *   bench-http-client direct PORT N
 *
 * `serve FD` is the loopback HTTP server of both workloads, a thread per
 * connection on the listening socket FD: `/big/SIZE` answers SIZE bytes,
 * anything else a 64-byte body.
 *
 *   bench-http-client serve FD
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned char *buf;
static size_t cap = 64 << 20, len, pos;
static int ws;

static void
fill(void)
{
	if (pos > 0 && pos == len)
		pos = len = 0;
	if (len == cap) {
		memmove(buf, buf + pos, len - pos);
		len -= pos;
		pos = 0;
	}
	ssize_t n = read(0, buf + len, cap - len);
	if (n <= 0) {
		fprintf(stderr, "bench-http-client: the server closed the connection\n");
		exit(1);
	}
	len += (size_t)n;
}

/* the next message; valid until the next call */
static unsigned char *
next(size_t *out_len)
{
	if (!ws) {
		for (size_t scanned = pos;;) {
			unsigned char *nl = memchr(buf + scanned, '\n', len - scanned);
			if (nl != NULL) {
				unsigned char *msg = buf + pos;
				*out_len = (size_t)(nl - msg);
				pos = (size_t)(nl - buf) + 1;
				return msg;
			}
			scanned = len;
			size_t off = pos;
			fill();
			scanned -= off - pos; /* fill() may have moved the data */
		}
	}
	for (;;) {
		size_t avail = len - pos, off = 2, n;
		if (avail >= 2) {
			n = buf[pos + 1] & 0x7f;
			if (n == 126 && avail >= 4) {
				n = (size_t)buf[pos + 2] << 8 | buf[pos + 3];
				off = 4;
			} else if (n == 127 && avail >= 10) {
				n = 0;
				for (int i = 0; i < 8; i++)
					n = n << 8 | buf[pos + 2 + i];
				off = 10;
			} else if (n >= 126) {
				fill();
				continue;
			}
			if (avail >= off + n) {
				unsigned char *msg = buf + pos + off;
				*out_len = n;
				pos += off + n;
				return msg;
			}
		}
		fill();
	}
}

static void
send_text(const char *text)
{
	size_t n = strlen(text);
	unsigned char head[14];
	size_t h = 0;
	int out = ws ? 0 : 1;

	if (ws) {
		head[h++] = 0x81;
		if (n < 126) {
			head[h++] = 0x80 | (unsigned char)n;
		} else if (n < 65536) {
			head[h++] = 0x80 | 126;
			head[h++] = (unsigned char)(n >> 8);
			head[h++] = (unsigned char)n;
		} else {
			head[h++] = 0x80 | 127;
			for (int i = 7; i >= 0; i--)
				head[h++] = (unsigned char)(n >> (8 * i));
		}
		memset(head + h, 0, 4); /* a zero mask */
		h += 4;
		if (write(out, head, h) != (ssize_t)h)
			exit(1);
	}
	if (write(out, text, n) != (ssize_t)n || (!ws && write(out, "\n", 1) != 1))
		exit(1);
}

static int
send_all(int fd, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *
serve_conn(void *data)
{
	static const char small_reply[] =
	    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	    "Content-Length: 64\r\n\r\n"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
	int fd = (int)(intptr_t)data;
	char req[65536];
	size_t have = 0;
	char *block = malloc(1 << 20);

	memset(block, 'Z', 1 << 20);
	for (;;) {
		char *end = have > 0 ? memmem(req, have, "\r\n\r\n", 4) : NULL;
		if (end == NULL) {
			ssize_t n;
			if (have == sizeof(req))
				break;
			n = read(fd, req + have, sizeof(req) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			continue;
		}
		size_t used = (size_t)(end + 4 - req);
		char *path = memchr(req, ' ', used);
		if (path != NULL && strncmp(path + 1, "/big/", 5) == 0) {
			unsigned long long size = strtoull(path + 6, NULL, 10);
			char head[128];
			int h = snprintf(head,
					 sizeof(head),
					 "HTTP/1.1 200 OK\r\nContent-Length: %llu\r\n\r\n",
					 size);
			if (send_all(fd, head, (size_t)h) < 0)
				break;
			while (size > 0) {
				size_t n = size < (1 << 20) ? (size_t)size : (1 << 20);
				if (send_all(fd, block, n) < 0)
					break;
				size -= n;
			}
		} else if (send_all(fd, small_reply, sizeof(small_reply) - 1) < 0) {
			break;
		}
		memmove(req, req + used, have - used);
		have -= used;
	}
	free(block);
	close(fd);
	return NULL;
}

static int
serve(int listener)
{
	for (;;) {
		pthread_t thread;
		int fd = accept(listener, NULL, NULL);
		if (fd < 0)
			return 1;
		pthread_create(&thread, NULL, serve_conn, (void *)(intptr_t)fd);
		pthread_detach(thread);
	}
}

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* @n requests, each answered before the next goes */
static int
small(const char *request, long n)
{
	double *lat = calloc((size_t)n, sizeof(double));

	for (long i = 0; i < n; i++) {
		double t0 = now_us();
		send_text(request);
		for (;;) {
			size_t len_msg;
			unsigned char *msg = next(&len_msg);
			if (memmem(msg, len_msg < 16 ? len_msg : 16, "\"id\":1,", 7) == NULL &&
			    memmem(msg, len_msg, "\"id\":1}", 7) == NULL)
				continue;
			if (memmem(msg, len_msg, "\"result\"", 8) == NULL) {
				fprintf(stderr, "bench-http-client: %.*s\n", (int)len_msg, msg);
				return 1;
			}
			break;
		}
		lat[i] = now_us() - t0;
	}
	qsort(lat, (size_t)n, sizeof(double), compare_doubles);
	fprintf(stderr, "%.1f %.1f\n", lat[n / 2], lat[n * 9 / 10]);
	return 0;
}

/* @n GETs on one connection to 127.0.0.1:@port, each answered before the next goes */
static int
direct(int port, long n)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	double *lat = calloc((size_t)n, sizeof(double));
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (long i = 0; i < n; i++) {
		char reply[512];
		size_t have = 0;
		double t0 = now_us();

		if (send_all(fd, get, sizeof(get) - 1) < 0)
			return 1;
		/* the small reply is a fixed head and 64 bytes */
		for (;;) {
			char *end;
			ssize_t r = read(fd, reply + have, sizeof(reply) - have);
			if (r <= 0)
				return 1;
			have += (size_t)r;
			end = memmem(reply, have, "\r\n\r\n", 4);
			if (end != NULL && have >= (size_t)(end + 4 - reply) + 64)
				break;
		}
		lat[i] = now_us() - t0;
	}
	qsort(lat, (size_t)n, sizeof(double), compare_doubles);
	fprintf(stderr, "%.1f %.1f\n", lat[n / 2], lat[n * 9 / 10]);
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	static const char marker[] = "\"deltaBase64\":\"";
	uint64_t bytes = 0, deltas = 0;

	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(atoi(argv[2]));
	if (argc == 4 && strcmp(argv[1], "direct") == 0)
		return direct(atoi(argv[2]), atol(argv[3]));
	if (argc != 3 && argc != 4)
		return 2;
	ws = strcmp(argv[1], "ws") == 0;
	buf = malloc(cap);
	/* 1 MiB pipes for both servers, as a client that streams would have */
	if (!ws) {
		fcntl(0, F_SETPIPE_SZ, 1 << 20);
		fcntl(1, F_SETPIPE_SZ, 1 << 20);
	}
	if (argc == 4)
		return small(argv[2], atol(argv[3]));
	send_text(argv[2]);
	for (;;) {
		size_t n;
		unsigned char *msg = next(&n);
		unsigned char *start = memmem(msg, n < 200 ? n : 200, marker, sizeof(marker) - 1);
		unsigned char *end;

		if (start == NULL) {
			if (memmem(msg, n, "\"error\"", 7) != NULL &&
			    memmem(msg, n, "\"id\"", 4) != NULL) {
				fprintf(stderr, "bench-http-client: %.*s\n", (int)n, msg);
				return 1;
			}
			continue;
		}
		start += sizeof(marker) - 1;
		end = memchr(start, '"', n - (size_t)(start - msg));
		size_t b64 = (size_t)(end - start);
		bytes += b64 / 4 * 3 - (b64 > 0 && end[-1] == '=') - (b64 > 1 && end[-2] == '=');
		deltas++;
		if (memmem(end, n - (size_t)(end - msg), "\"done\":true", 11) != NULL) {
			if (memmem(end, n - (size_t)(end - msg), "\"error\":null", 12) == NULL) {
				fprintf(stderr, "bench-http-client: %.*s\n", (int)n, msg);
				return 1;
			}
			break;
		}
	}
	fprintf(stderr, "%llu %llu\n", (unsigned long long)bytes, (unsigned long long)deltas);
	return 0;
}
