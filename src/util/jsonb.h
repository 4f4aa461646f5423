/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Building a json-c tree without checking every call (jsonb.c): json-c
 * can fail to allocate anywhere, so every insertion goes through
 * jsonb__put()/jsonb__push(), which record the failure in the builder;
 * the caller checks b->oom once at the end and drops the tree.
 */
#ifndef FS_UTIL_JSONB_H
#define FS_UTIL_JSONB_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct jsonb {
	bool oom; /* some insertion failed: the tree is incomplete */
};

/* Add v to object o under key; returns v, or NULL (v freed) on failure
 * (v or o NULL counts as one, so a failed parent fails its children). */
struct json_object *jsonb__put(struct jsonb *b, struct json_object *o,
			       const char *key, struct json_object *v);
/* Add key with the JSON value null to o. */
void jsonb__put_null(struct jsonb *b, struct json_object *o, const char *key);
/* Add the string s under key, or null when s is NULL or "". */
void jsonb__put_str_or_null(struct jsonb *b, struct json_object *o,
			    const char *key, const char *s);
/* Append v to array arr; as jsonb__put. */
struct json_object *jsonb__push(struct jsonb *b, struct json_object *arr,
				struct json_object *v);
/* A JSON string from a fixed-size char array: never read past its cap
 * bytes, even unterminated. */
struct json_object *jsonb__str(const char *s, size_t cap);
#define JSONB_STR(field) jsonb__str(field, sizeof(field))

#endif /* FS_UTIL_JSONB_H */
