/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
/*
 * The library floor of scripts/bench-startup.py's stdio row: a program
 * linked (--no-as-needed, PIE, -z now) against exactly the libraries
 * execserverd links, that answers the first line on stdin with a canned
 * `initialize` result and exits. Its start-up is exec, the dynamic loader's
 * mapping and relocation of those libraries and their constructors: what
 * any daemon built on them pays before its main() does anything.
 */

#include <string.h>
#include <unistd.h>

int
main(void)
{
	static const char answer[] = "{\"id\":1,\"result\":{\"sessionId\":\"floor\"}}\n";
	char buf[4096];
	ssize_t n;

	/* one request line: read until a newline or end of input */
	while ((n = read(0, buf, sizeof buf)) > 0) {
		if (memchr(buf, '\n', (size_t)n) != NULL)
			break;
	}
	return write(1, answer, sizeof answer - 1) == (ssize_t)(sizeof answer - 1) ? 0 : 1;
}
