/* A JSON list of objects written again with only the fields a GraphQL selection asks for, in
   its order, under its response names: what graphql-core would write for a list of dicts whose
   fields are leaves (String, Int, Boolean, or lists of them) and `__typename`.

   The GraphQL fast path (service/graphql_fast.py) asks it for `legalActions { actions {...} }`:
   the REST answer's actions text goes in, the typed list's text comes out, without the 193
   actions being read into dicts, completed field by field and written again (3.2 million
   instructions a request in Python; docs/performance.md). A value is written as its text only
   where that text is exactly what orjson would write for the value graphql-core completes it
   to: a string of printable ASCII without escapes, an int in GraphQL's range written plainly,
   true or false, null where the field is nullable, and lists of these (a list with white space
   is written again without it). Most values are copied straight from the input. Anything
   else (a missing non-null field, another kind of value, an escape, a number with a fraction,
   a duplicate that cannot be told apart, text that is not JSON) raises ValueError, and the fast
   path leaves the request to strawberry. The input is request-independent text the service
   wrote, but it is scanned as if hostile: every read is bounds-checked (or stops at the NUL
   that ends every bytes object), nesting is limited, and tests/test_project.py runs hostile
   texts under valgrind's memcheck. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* a field's kind (the low bits), and its flags */
enum { K_CONST = 0, K_STRING = 1, K_INT = 2, K_BOOL = 3 };
#define K_KIND 7
#define K_LIST 8           /* a list of the kind */
#define K_NULLABLE 16      /* the value may be null (or missing: written null) */
#define K_ITEM_NULLABLE 32 /* a list's items may be null */
/* project's `shape`: the list itself may be null; its items may be null */
#define S_NULLABLE 1
#define S_ITEM_NULLABLE 2

#define MAX_FIELDS 64
#define MAX_DEPTH 64

typedef struct Field {
    const char *prefix; /* `"key":`, the response name's, with the comma before it but first */
    Py_ssize_t prefix_len;
    const char *name; /* the source key (K_CONST: the constant's JSON text) */
    Py_ssize_t name_len;
    int kind;
    struct Field *same; /* the next field reading the same key (an alias), or NULL */
    const char *at, *end; /* the value's text in the current object; NULL: not there */
} Field;

/* the answer, written straight into the bytes object returned (resized as it grows, and to
   its size at the end) */
typedef struct {
    PyObject *bytes;
    char *data;
    Py_ssize_t size, cap;
} Out;

static int fail(const char *why) {
    PyErr_Format(PyExc_ValueError, "project: %s", why);
    return -1;
}

/* room for n more bytes in o, or -1 with an exception */
static int reserve(Out *o, Py_ssize_t n) {
    if (n <= o->cap - o->size)
        return 0;
    Py_ssize_t cap = o->cap;
    while (cap - o->size < n) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    if (_PyBytes_Resize(&o->bytes, cap) < 0)
        return -1; /* o->bytes is NULL */
    o->data = PyBytes_AS_STRING(o->bytes);
    o->cap = cap;
    return 0;
}

static int put(Out *o, const char *text, Py_ssize_t n) {
    if (reserve(o, n) < 0)
        return -1;
    memcpy(o->data + o->size, text, (size_t)n);
    o->size += n;
    return 0;
}

static inline int put_byte(Out *o, char c) {
    if (reserve(o, 1) < 0)
        return -1;
    o->data[o->size++] = c;
    return 0;
}

/* The text is a bytes object's: the byte at `end` is its terminating NUL, which stops every
   scan below without a bounds check of its own (NUL is neither white space nor in a string) */
static inline const char *skip_ws(const char *p, const char *end) {
    (void)end;
    /* one comparison for the usual byte: none of the four is above ' ' */
    while ((unsigned char)*p <= ' ' && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static inline int is_word(const char *p, const char *end, const char *word, Py_ssize_t n) {
    if (*p != word[0] || end - p < n) /* p <= end: at worst the NUL, never a word's first */
        return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (p[i] != word[i])
            return 0;
    return 1;
}

/* the bytes a string this reads may hold: printable ASCII but '"' and '\\' */
static const unsigned char PLAIN[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70: DEL */
    /* 0x80 to 0xff: 0 */
};

/* past a string at p ('"') of printable ASCII without escapes, or NULL: the only strings this
   reads, keys and values alike (orjson writes these as they are; an escape, DEL or a byte past
   ASCII would need decoding and checking as orjson does: left to the slower path) */
static inline const char *skip_string(const char *p, const char *end) {
    for (p++; PLAIN[(unsigned char)*p]; p++) /* stops at the NUL at `end` at the latest */
        ;
    return p < end && *p == '"' ? p + 1 : NULL;
}

/* after an item of a list or object (and the white space before it): past `close` (1), or
   past ',' and the white space after it (0); -1: neither */
static inline int next_item(const char **p, const char *end, char close) {
    const char *q = *p;
    /* the usual text, as the service writes it: no white space around the ',' or before the
       close (q < end where *q is either: *end is the NUL) */
    if (*q == ',' && (unsigned char)q[1] > ' ') {
        *p = q + 1;
        return 0;
    }
    if (*q == close) {
        *p = q + 1;
        return 1;
    }
    q = skip_ws(q, end);
    if (q < end && *q == close) {
        *p = q + 1;
        return 1;
    }
    if (q >= end || *q != ',')
        return -1;
    *p = skip_ws(q + 1, end);
    return 0;
}

/* past an object's key at p ('"', read as skip_string reads strings), its ':' and the white
   space around it, or NULL; *key_end: the key's closing '"' */
static inline const char *read_key(const char *p, const char *end, const char **key_end) {
    if (p >= end || *p != '"' || !(p = skip_string(p, end)))
        return NULL;
    *key_end = p - 1;
    p = skip_ws(p, end);
    if (p >= end || *p != ':')
        return NULL;
    return skip_ws(p + 1, end);
}

static int is_number_char(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static const char *digits(const char *p, const char *end, Py_ssize_t most) {
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p == start || p - start > most ? NULL : p;
}

/* past a JSON value at p (already past white space) that the reference reader (orjson) takes
   as it is written here, or NULL. Narrower than JSON where orjson's reading is subtle: strings
   of printable ASCII without escapes (an escape, a byte past ASCII: refused, not decoded and
   checked), numbers of at most 15 digits before and after the point without an exponent (so
   none overflows a double), nesting at most MAX_DEPTH deep. A refusal only sends the request
   down the slower path. */
static const char *skip_value(const char *p, const char *end, int depth) {
    if (p >= end)
        return NULL;
    switch (*p) {
    case '"':
        return skip_string(p, end);
    case 't':
        return is_word(p, end, "true", 4) ? p + 4 : NULL;
    case 'f':
        return is_word(p, end, "false", 5) ? p + 5 : NULL;
    case 'n':
        return is_word(p, end, "null", 4) ? p + 4 : NULL;
    case '[':
    case '{': {
        if (depth >= MAX_DEPTH)
            return NULL;
        char close = *p == '[' ? ']' : '}';
        int object = *p == '{';
        p = skip_ws(p + 1, end);
        if (p < end && *p == close)
            return p + 1;
        for (int next = 0; next == 0;) {
            const char *key_end;
            if (object && !(p = read_key(p, end, &key_end)))
                return NULL;
            if (!(p = skip_value(p, end, depth + 1)) || (next = next_item(&p, end, close)) < 0)
                return NULL;
        }
        return p;
    }
    default:
        if (*p == '-')
            p++;
        if (p < end && *p == '0')
            p++;
        else if (!(p = digits(p, end, 15)))
            return NULL;
        if (p < end && *p == '.' && !(p = digits(p + 1, end, 15)))
            return NULL;
        return p < end && is_number_char(*p) ? NULL : p;
    }
}

static inline uint32_t load4(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t load8(const char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline void store4(char *p, uint32_t v) {
    memcpy(p, &v, 4);
}

static inline void store8(char *p, uint64_t v) {
    memcpy(p, &v, 8);
}

/* copy n bytes to `to`: the short pieces (card codes, keys, a template's texts) as two or four
   overlapping words instead of a call */
static inline char *copy(char *to, const char *from, Py_ssize_t n) {
    if (n > 16 && n <= 32) {
        uint64_t a = load8(from), b = load8(from + 8), c = load8(from + n - 16),
                 d = load8(from + n - 8);
        store8(to, a);
        store8(to + 8, b);
        store8(to + n - 16, c);
        store8(to + n - 8, d);
    } else if (n >= 8 && n <= 16) {
        uint64_t head = load8(from), tail = load8(from + n - 8);
        store8(to, head);
        store8(to + n - 8, tail);
    } else if (n >= 4 && n < 8) {
        uint32_t head = load4(from), tail = load4(from + n - 4);
        store4(to, head);
        store4(to + n - 4, tail);
    } else if (n < 4) {
        for (Py_ssize_t i = 0; i < n; i++)
            to[i] = from[i];
    } else {
        memcpy(to, from, (size_t)n);
    }
    return to + n;
}

/* past the scalar of `kind` at p where its text is what orjson writes for the value
   graphql-core completes it to; NULL: not */
static inline const char *scalar(const char *p, const char *end, int kind) {
    if (kind == K_STRING)
        return p < end && *p == '"' ? skip_string(p, end) : NULL;
    if (kind == K_INT) {
        int negative = p < end && *p == '-';
        const char *first = p + negative;
        if (!(p = digits(first, end, 10)) || (p - first > 1 && *first == '0') ||
            (p < end && is_number_char(*p)))
            return NULL;
        long long value = 0;
        for (const char *d = first; d < p; d++)
            value = value * 10 + (*d - '0');
        if (negative ? (value == 0 || value > 2147483648LL) : value > 2147483647LL)
            return NULL; /* -0 is written 0; outside GraphQL's Int */
        return p;
    }
    if (kind == K_BOOL) {
        if (is_word(p, end, "true", 4))
            return p + 4;
        if (is_word(p, end, "false", 5))
            return p + 5;
    }
    return NULL;
}

/* past the value of field f at p (past white space); NULL: refused (ValueError set). Its text
   is what orjson writes but for white space inside a list: *spaced is set where there is some */
static const char *value(const char *p, const char *end, const Field *f, int *spaced) {
    if (f->kind == K_STRING || f->kind == (K_STRING | K_NULLABLE)) {
        if (*p == '"') { /* the usual value first: a string */
            if (!(p = skip_string(p, end)))
                fail("a value of another kind");
            return p;
        }
    } else if ((f->kind & (K_KIND | K_LIST)) == (K_STRING | K_LIST) && *p == '[' &&
               p[1] == '"') {
        /* a list of strings without white space, `["AS","2C"]`, in one loop: where anything
           else comes (white space, a null, an escape) it is read again below */
        for (const char *q = p + 1; (q = skip_string(q, end)) != NULL; q++) {
            if (*q == ']')
                return q + 1;
            if (*q != ',' || q[1] != '"')
                break;
        }
    }
    if (is_word(p, end, "null", 4)) {
        if (!(f->kind & K_NULLABLE)) {
            fail("null in a non-null field");
            return NULL;
        }
        return p + 4;
    }
    int kind = f->kind & K_KIND;
    if (!(f->kind & K_LIST)) {
        if (!(p = scalar(p, end, kind)))
            fail("a value of another kind");
        return p;
    }
    if (p >= end || *p != '[') {
        fail("not a list");
        return NULL;
    }
    const char *first = skip_ws(p + 1, end);
    *spaced |= first != p + 1;
    p = first;
    if (p < end && *p == ']')
        return p + 1;
    for (;;) {
        if (is_word(p, end, "null", 4)) {
            if (!(f->kind & K_ITEM_NULLABLE)) {
                fail("null in a list of non-null items");
                return NULL;
            }
            p += 4;
        } else if (!(p = scalar(p, end, kind))) {
            fail("a list item of another kind");
            return NULL;
        }
        const char *item_end = p;
        int next = next_item(&p, end, ']');
        if (next < 0) {
            fail("a list is not closed");
            return NULL;
        }
        *spaced |= p - item_end != 1; /* more than the ']', or the ',', between two items */
        if (next)
            return p;
    }
}

/* the list [p, stop) that `value` read, written to `to` without its white space (its strings
   hold no escapes: a '"' opens or closes one) */
static char *squeeze(char *to, const char *p, const char *stop) {
    int quoted = 0;
    for (; p < stop; p++) {
        char c = *p;
        if (c == '"')
            quoted = !quoted;
        else if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
            continue;
        *to++ = c;
    }
    return to;
}

static inline int same_key(const Field *f, const char *key, Py_ssize_t key_len) {
    if (f->name_len != key_len)
        return 0;
    for (Py_ssize_t i = 0; i < key_len; i++)
        if (f->name[i] != key[i])
            return 0;
    return 1;
}

/* The key an object of the list had at one position, as the text `"key":` (its quotes and
   colon, no white space between), and the field reading it (NULL: none): the objects of one
   list mostly repeat their keys in the same order, so the next object's key at that position
   is first compared with it as a whole, a few word compares instead of reading the string and
   looking it up. Equal text is the same key, read the same way. */
typedef struct {
    const char *text; /* in the text being read; NULL: no hint */
    Py_ssize_t len;
    Field *match;
} Hint;
#define MAX_HINTS 16

/* the n bytes at p (before `end`) are those at t: for 4 to 32 bytes, two or four overlapping
   word compares */
static inline int same_text(const char *p, const char *end, const char *t, Py_ssize_t n) {
    if (end - p < n)
        return 0;
    if (n >= 4 && n <= 8)
        return load4(p) == load4(t) && load4(p + n - 4) == load4(t + n - 4);
    if (n > 8 && n <= 16)
        return load8(p) == load8(t) && load8(p + n - 8) == load8(t + n - 8);
    if (n > 16 && n <= 32)
        return load8(p) == load8(t) && load8(p + 8) == load8(t + 8) &&
               load8(p + n - 16) == load8(t + n - 16) && load8(p + n - 8) == load8(t + n - 8);
    return memcmp(p, t, (size_t)n) == 0;
}

/* What one call reads: the fields, the first field of each source key (`keys`; the others
   follow it by `same`), and the scratch room for lists written again without white space
   (allocated when first needed: as long as the text, which no object's lists outgrow). */
typedef struct {
    Field fields[MAX_FIELDS];
    Field *keys[MAX_FIELDS];
    Py_ssize_t n, n_keys;
    /* an object's bytes with every field that reads a key null, and the fields that may not
       be (non-null, not constant) */
    Py_ssize_t base_need, required;
    char *scratch;
    Py_ssize_t scratch_size;
    Hint hints[MAX_HINTS];
} Spec;

/* read the object at p ('{') and write its selected values to o in the selection's order;
   the text past it, or NULL. A value is written from the text itself (it is what orjson
   writes), a list with white space from its copy without it in the scratch room. */
static const char *put_object(Out *o, Spec *s, const char *p, const char *end) {
    Field *fields = s->fields;
    Py_ssize_t n = s->n;
    for (Py_ssize_t i = 0; i < n; i++)
        fields[i].at = NULL;
    /* the object's bytes, exactly (aliases write one value more than once), and the non-null
       fields found, counted as the values are read */
    Py_ssize_t need = s->base_need, found = 0;
    char *to = s->scratch;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
    } else {
        for (int next = 0, at_key = 0; next == 0; at_key++) {
            Hint *hint = at_key < MAX_HINTS ? &s->hints[at_key] : NULL;
            Field *match = NULL;
            if (hint && hint->text && same_text(p, end, hint->text, hint->len)) {
                match = hint->match;
                p = skip_ws(p + hint->len, end);
            } else {
                const char *key = p, *key_end;
                if (!(p = read_key(p, end, &key_end))) {
                    fail("not JSON, or a key that is not plain ASCII");
                    return NULL;
                }
                key++; /* past its '"' */
                Py_ssize_t key_len = key_end - key;
                for (Py_ssize_t k = 0; k < s->n_keys; k++) {
                    if (same_key(s->keys[k], key, key_len)) {
                        match = s->keys[k];
                        break;
                    }
                }
                if (hint) { /* `"key":` as one text, or no hint where white space parts them */
                    hint->text = key_end[1] == ':' ? key - 1 : NULL;
                    hint->len = key_len + 3;
                    hint->match = match;
                }
            }
            if (match == NULL) {
                if (!(p = skip_value(p, end, 1))) {
                    fail("not JSON");
                    return NULL;
                }
            } else {
                const char *start = p;
                int spaced = 0;
                if (!(p = value(p, end, match, &spaced)))
                    return NULL;
                const char *at = start, *stop = p;
                if (spaced) {
                    if (to == NULL) {
                        if (!(s->scratch = PyMem_Malloc((size_t)s->scratch_size))) {
                            PyErr_NoMemory();
                            return NULL;
                        }
                        to = s->scratch;
                    }
                    at = to;
                    stop = to = squeeze(to, start, p);
                }
                /* the last of equal keys counts, as in a dict; every field reading it (an
                   alias more) takes it */
                for (Field *f = match; f != NULL; f = f->same) {
                    if (f->at == NULL) {
                        need += (stop - at) - 4; /* instead of its null */
                        found += !(f->kind & K_NULLABLE);
                    } else {
                        need += (stop - at) - (f->end - f->at);
                    }
                    f->at = at;
                    f->end = stop;
                }
            }
            if ((next = next_item(&p, end, '}')) < 0) {
                fail("not JSON");
                return NULL;
            }
        }
    }
    if (found < s->required) {
        fail("a non-null field is missing");
        return NULL;
    }
    if (reserve(o, need) < 0)
        return NULL;
    char *out = o->data + o->size;
    *out++ = '{';
    for (Py_ssize_t i = 0; i < n; i++) {
        Field *f = &fields[i];
        out = copy(out, f->prefix, f->prefix_len);
        if (f->kind == K_CONST)
            out = copy(out, f->name, f->name_len);
        else if (f->at != NULL)
            out = copy(out, f->at, f->end - f->at);
        else
            out = copy(out, "null", 4);
    }
    *out++ = '}';
    o->size = out - o->data;
    return p;
}

/* Templates: the kinds of object the list's text mostly holds, each written by the service
   from fixed pieces (engine/wire.py: a meld is `{"type":"meld","cards":[` + its cards +
   `],"rank":"4","seat":0}`). An object whose text is a template's start, then a slot of
   strings (the cards), then one of the template's known ends, exactly, is written as that end
   maps it: the text before the slot, the slot as it is, the text after it. Those texts are
   what `project` itself writes for the template with one string in the slot (the caller
   works them out once per selection: service/graphql_fast.py), and `project` writes such an
   object's slot as it is, so the answer is the same bytes: a few compares and copies for an
   object instead of reading its keys. An object that is not a template's exactly (another
   end, white space, an escape or a byte past printable ASCII in the slot) is read as any
   other. */
#define SLOT_STRING 1  /* the slot is one string */
#define SLOT_STRINGS 2 /* one or more strings, a comma between two */
#define MAX_TEMPLATES 8

typedef struct {
    const char *start;
    Py_ssize_t start_len;
    int slot;
    PyObject *ends; /* dict: the text after the slot -> (before, after): the typed texts; after
                       None: the selection drops the slot (before is the whole object) */
    /* the end matched last (in the text being read) and its typed texts */
    const char *hint;
    Py_ssize_t hint_len;
    const char *before, *after;
    Py_ssize_t before_len, after_len;
    int keep;
} Template;

static int read_templates(PyObject *templates, Template *t, Py_ssize_t *n) {
    if (!PyTuple_Check(templates))
        return fail("the templates must be a tuple");
    *n = PyTuple_GET_SIZE(templates);
    if (*n > MAX_TEMPLATES)
        return fail("more templates than it reads");
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *item = PyTuple_GET_ITEM(templates, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3 ||
            !PyBytes_Check(PyTuple_GET_ITEM(item, 0)) || !PyDict_Check(PyTuple_GET_ITEM(item, 2)))
            return fail("a template must be (start, slot, ends)");
        long slot = PyLong_AsLong(PyTuple_GET_ITEM(item, 1));
        if (slot == -1 && PyErr_Occurred())
            return -1;
        if (slot != SLOT_STRING && slot != SLOT_STRINGS)
            return fail("a template's slot is unknown");
        PyObject *start = PyTuple_GET_ITEM(item, 0);
        t[i] = (Template){PyBytes_AS_STRING(start), PyBytes_GET_SIZE(start), (int)slot,
                          PyTuple_GET_ITEM(item, 2), NULL, 0, NULL, NULL, 0, 0, 0};
        if (t[i].start_len == 0)
            return fail("a template's start is empty");
    }
    return 0;
}

/* skip_string for a slot's strings, mostly cards' codes: two bytes checked without a loop
   (each byte read is at most the NUL at `end`: the one before it was PLAIN) */
static inline const char *skip_code(const char *q, const char *end) {
    if (PLAIN[(unsigned char)q[1]] && PLAIN[(unsigned char)q[2]] && q[3] == '"')
        return q + 4;
    return skip_string(q, end);
}

/* t's typed texts for the end `typed` maps to ((before, after) as read_templates says) */
static int take_end(Template *t, PyObject *typed) {
    PyObject *before, *after;
    if (!PyTuple_Check(typed) || PyTuple_GET_SIZE(typed) != 2 ||
        !PyBytes_Check(before = PyTuple_GET_ITEM(typed, 0)) ||
        (!PyBytes_Check(after = PyTuple_GET_ITEM(typed, 1)) && after != Py_None))
        return fail("a template's end must map to (before, after)");
    t->before = PyBytes_AS_STRING(before);
    t->before_len = PyBytes_GET_SIZE(before);
    t->keep = after != Py_None;
    t->after = t->keep ? PyBytes_AS_STRING(after) : NULL;
    t->after_len = t->keep ? PyBytes_GET_SIZE(after) : 0;
    return 0;
}

/* the object at p written by a template whose text it is exactly: the text past it; p itself
   where it is no template's (nothing written); NULL: an error */
static const char *put_templated(Out *o, Template *templates, Py_ssize_t n, const char *p,
                                 const char *end) {
    for (Py_ssize_t i = 0; i < n; i++) {
        Template *t = &templates[i];
        if (!same_text(p, end, t->start, t->start_len))
            continue;
        const char *slot = p + t->start_len, *q = slot;
        if (*q != '"' || !(q = skip_code(q, end)))
            return p;
        if (t->slot == SLOT_STRINGS) /* *q == ',': q < end, so q[1] is at most the NUL */
            while (*q == ',' && q[1] == '"')
                if (!(q = skip_code(q + 1, end)))
                    return p;
        Py_ssize_t slot_len = q - slot, rest;
        if (t->hint && same_text(q, end, t->hint, t->hint_len)) {
            rest = t->hint_len;
        } else {
            const char *close = memchr(q, '}', (size_t)(end - q));
            if (close == NULL)
                return p;
            rest = close + 1 - q;
            PyObject *key = PyBytes_FromStringAndSize(q, rest);
            if (key == NULL)
                return NULL;
            PyObject *typed = PyDict_GetItemWithError(t->ends, key); /* borrowed */
            Py_DECREF(key);
            if (typed == NULL)
                return PyErr_Occurred() ? NULL : p;
            if (take_end(t, typed) < 0)
                return NULL;
            t->hint = q;
            t->hint_len = rest;
        }
        if (reserve(o, t->before_len + slot_len + t->after_len) < 0)
            return NULL;
        char *out = o->data + o->size;
        out = copy(out, t->before, t->before_len);
        if (t->keep) {
            out = copy(out, slot, slot_len);
            out = copy(out, t->after, t->after_len);
        }
        o->size = out - o->data;
        return q + rest;
    }
    return p;
}

static int read_fields(PyObject *spec, Spec *s) {
    if (!PyTuple_Check(spec))
        return fail("the fields must be a tuple");
    s->n = PyTuple_GET_SIZE(spec);
    if (s->n > MAX_FIELDS)
        return fail("more fields than it writes");
    for (Py_ssize_t i = 0; i < s->n; i++) {
        PyObject *item = PyTuple_GET_ITEM(spec, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3)
            return fail("a field must be (prefix, name, kind)");
        PyObject *prefix = PyTuple_GET_ITEM(item, 0), *name = PyTuple_GET_ITEM(item, 1);
        if (!PyBytes_Check(prefix) || !PyBytes_Check(name))
            return fail("a field's prefix and name must be bytes");
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(item, 2));
        if (kind == -1 && PyErr_Occurred())
            return -1;
        if (kind < 0 || kind > 63 || (kind & K_KIND) > K_BOOL ||
            ((kind & K_KIND) == K_CONST && kind != K_CONST))
            return fail("a field's kind is unknown");
        Field *f = &s->fields[i];
        f->prefix = PyBytes_AS_STRING(prefix);
        f->prefix_len = PyBytes_GET_SIZE(prefix);
        f->name = PyBytes_AS_STRING(name);
        f->name_len = PyBytes_GET_SIZE(name);
        f->kind = (int)kind;
        f->same = NULL;
        s->base_need += f->prefix_len + (f->kind == K_CONST ? f->name_len : 4);
        if (f->kind == K_CONST)
            continue;
        s->required += !(f->kind & K_NULLABLE);
        Field *first = NULL;
        for (Py_ssize_t k = 0; k < s->n_keys && first == NULL; k++)
            if (same_key(s->keys[k], f->name, f->name_len))
                first = s->keys[k];
        if (first == NULL) {
            s->keys[s->n_keys++] = f;
            continue;
        }
        if (first->kind != f->kind)
            return fail("one key read as two kinds");
        while (first->same != NULL)
            first = first->same;
        first->same = f;
    }
    return 0;
}

PyDoc_STRVAR(project_doc,
"project(text, fields, shape, templates=()) -> bytes\n\n"
"The JSON list of objects `text` written again with `fields` (each (prefix, name, kind):\n"
"the `\"key\":` to write, with its comma but for the first; the source key, or for kind 0\n"
"the constant's JSON text; the kind: 1 String, 2 Int, 3 Boolean, +8 a list of them, +16\n"
"nullable, +32 items nullable). `shape`: 1 the list may be null, 2 its items may be.\n"
"`templates`: up to 8 (start, slot, ends): an object whose text is start + a slot (1: one\n"
"string, 2: strings with a comma between) + a key of the dict `ends`, exactly, is written as\n"
"the key maps it, (before, after): before + the slot + after, or (after None) before alone;\n"
"the caller makes these what this writes for such an object with `fields`.\n"
"ValueError where the text is not such a list or a value not one written as it is.");

static PyObject *project(PyObject *self, PyObject *args) {
    PyObject *text, *spec, *templates = NULL;
    int shape;
    if (!PyArg_ParseTuple(args, "SO!i|O:project", &text, &PyTuple_Type, &spec, &shape,
                          &templates))
        return NULL;
    Template kinds[MAX_TEMPLATES];
    Py_ssize_t n_kinds = 0;
    if (templates != NULL && read_templates(templates, kinds, &n_kinds) < 0)
        return NULL;
    Py_ssize_t text_len = PyBytes_GET_SIZE(text);
    Spec s;
    s.n = s.n_keys = 0;
    s.base_need = 2; /* its braces */
    s.required = 0;
    for (int i = 0; i < MAX_HINTS; i++)
        s.hints[i].text = NULL;
    s.scratch = NULL;
    s.scratch_size = text_len + 1;
    Out o = {NULL, NULL, 0, 0};
    PyObject *result = NULL;
    if (read_fields(spec, &s) < 0)
        goto done;
    o.cap = text_len + text_len / 2 + 64; /* a null more for each missing field: room to spare */
    if (!(o.bytes = PyBytes_FromStringAndSize(NULL, o.cap)))
        goto done;
    o.data = PyBytes_AS_STRING(o.bytes);
    const char *p = PyBytes_AS_STRING(text), *end = p + text_len; /* *end: NUL */
    p = skip_ws(p, end);
    if (is_word(p, end, "null", 4)) {
        if (!(shape & S_NULLABLE)) {
            fail("null for a non-null list");
            goto done;
        }
        if (put(&o, "null", 4) < 0)
            goto done;
        p += 4;
    } else {
        if (p >= end || *p != '[') {
            fail("not a list");
            goto done;
        }
        if (put_byte(&o, '[') < 0)
            goto done;
        p = skip_ws(p + 1, end);
        if (p < end && *p == ']') {
            p++;
        } else {
            for (int next = 0, first = 1; next == 0; first = 0) {
                if (!first && put_byte(&o, ',') < 0)
                    goto done;
                if (is_word(p, end, "null", 4)) {
                    if (!(shape & S_ITEM_NULLABLE)) {
                        fail("null in a list of non-null objects");
                        goto done;
                    }
                    if (put(&o, "null", 4) < 0)
                        goto done;
                    p += 4;
                } else if (p < end && *p == '{') {
                    const char *past = n_kinds ? put_templated(&o, kinds, n_kinds, p, end) : p;
                    if (past == p)
                        past = put_object(&o, &s, p, end);
                    if (!(p = past))
                        goto done;
                } else {
                    fail("an item that is not an object");
                    goto done;
                }
                if ((next = next_item(&p, end, ']')) < 0) {
                    fail("not JSON");
                    goto done;
                }
            }
        }
        if (put_byte(&o, ']') < 0)
            goto done;
    }
    if (skip_ws(p, end) != end) {
        fail("text after the list");
        goto done;
    }
    if (_PyBytes_Resize(&o.bytes, o.size) == 0) {
        result = o.bytes;
        o.bytes = NULL;
    }
done:
    PyMem_Free(s.scratch);
    Py_XDECREF(o.bytes);
    return result;
}

PyMethodDef project_methods[] = {
    {"project", project, METH_VARARGS, project_doc},
    {NULL, NULL, 0, NULL},
};
