// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The execserverd authors
// where gi-docgen links the namespaces these references depend on
baseURLs = [
    ['GLib', 'https://docs.gtk.org/glib/'],
    ['GObject', 'https://docs.gtk.org/gobject/'],
    ['Gio', 'https://docs.gtk.org/gio/'],
    ['GModule', 'https://docs.gtk.org/gmodule/'],
    ['Json', 'https://gnome.pages.gitlab.gnome.org/json-glib/'],
    ['Execrpc', '../execrpc-1/'],
]
