/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPDX-FileCopyrightText: 2026 The execserverd authors */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* the reference's bounds (codex-rs capability discovery), the defaults of the plugin options */
#define ESD_DISCOVERY_MAX_ROOTS_DEFAULT	      128
#define ESD_DISCOVERY_MAX_DEPTH_DEFAULT	      6
#define ESD_DISCOVERY_MAX_DIRECTORIES_DEFAULT 2000
#define ESD_DISCOVERY_MAX_ENTRIES_DEFAULT     20000
#define ESD_DISCOVERY_MAX_FILE_BYTES_DEFAULT  (1024 * 1024)
#define ESD_DISCOVERY_MAX_ROOT_BYTES_DEFAULT  (16 * 1024 * 1024)
/* ours: what one answer may hold, so that 128 full roots do not make gigabytes */
#define ESD_DISCOVERY_MAX_ANSWER_BYTES_DEFAULT (256 * 1024 * 1024)

/* what one discovery may cost: per root for the walk and the reads */
typedef struct {
	guint max_roots;	/* roots per capabilityRoots/discoverV1 request */
	guint max_depth;	/* directory levels below a root that are listed */
	guint max_directories;	/* directories listed per root */
	guint max_entries;	/* directory entries seen per root */
	gsize max_file_bytes;	/* one file read */
	gsize max_root_bytes;	/* all the files read for one root */
	gsize max_answer_bytes; /* one call's answer */
} EsdDiscoveryLimits;

void
esd_discovery_limits_init(EsdDiscoveryLimits *limits);

G_END_DECLS
