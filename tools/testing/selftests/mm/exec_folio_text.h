/* SPDX-License-Identifier: GPL-2.0 */
/* The text of exec_folio_test's helpers, from exec_folio_text.S. */
#ifndef EXEC_FOLIO_TEXT_H
#define EXEC_FOLIO_TEXT_H

/* One function at the start of each 4K page, returning at once. */
extern char exec_folio_text[];
/* How many pages, and functions, there are. */
extern const unsigned long exec_folio_text_pages;

#endif
