/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel-style helpers the utility uses; it builds without the kernel tree. */
#ifndef EXEC_FOLIO_UTIL_H
#define EXEC_FOLIO_UTIL_H

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

#endif
