// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* json-c tree building with one out-of-memory flag; see jsonb.h. */
#include <string.h>
#include "util/jsonb.h"

struct json_object *jsonb__put(struct jsonb *b, struct json_object *o,
			       const char *key, struct json_object *v)
{
	if (o && v && !json_object_object_add(o, key, v))
		return v;
	json_object_put(v);
	b->oom = true;
	return NULL;
}

void jsonb__put_null(struct jsonb *b, struct json_object *o, const char *key)
{
	if (!o || json_object_object_add(o, key, NULL))
		b->oom = true;
}

void jsonb__put_str_or_null(struct jsonb *b, struct json_object *o,
			    const char *key, const char *s)
{
	if (s && *s)
		jsonb__put(b, o, key, json_object_new_string(s));
	else
		jsonb__put_null(b, o, key);
}

struct json_object *jsonb__push(struct jsonb *b, struct json_object *arr,
				struct json_object *v)
{
	if (arr && v && !json_object_array_add(arr, v))
		return v;
	json_object_put(v);
	b->oom = true;
	return NULL;
}

struct json_object *jsonb__str(const char *s, size_t cap)
{
	return json_object_new_string_len(s, (int)strnlen(s, cap));
}
