/* Legal-action lists as JSON text: counted, then written straight into the answer's str.

   The native half of schema/text.py: every piece of text (keys, card codes, rank and seat
   endings) comes from Python; this file only copies them in order. Its inputs are the engine's
   own values (a LegalActions' blocks and cards), never request bytes, and every index is
   checked before use: a wrong input raises TypeError, ValueError or OverflowError, it never
   reads or writes out of bounds. tests/test_text.py holds its output equal to
   engine.wire.actions_json. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* GROW: a scratch buffer that grows; COUNT: no bytes, only their count (the first pass);
   FIXED: the answer's own bytes, exactly as many as counted (the second pass) */
enum Mode { GROW, COUNT, FIXED };

typedef struct {
    char *data;
    Py_ssize_t size, cap;
    enum Mode mode;
    Py_ssize_t items;  /* the list's items started so far */
} Buffer;

typedef struct {
    const char *text;
    Py_ssize_t len;
} Piece;

/* room for `more` bytes after the end, or -1 with an exception */
static int reserve(Buffer *b, Py_ssize_t more) {
    if (b->mode == COUNT || more <= b->cap - b->size)
        return 0;
    if (b->mode == FIXED) {  /* the inputs changed between the passes: they cannot */
        PyErr_SetString(PyExc_SystemError, "actions_text: the text outgrew its count");
        return -1;
    }
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap - b->size < more) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *grown = PyMem_Realloc(b->data, (size_t)cap);
    if (!grown) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

/* copy n bytes: fixed-size moves for up to 32 (most pieces: a card code, a meld's start and
   end), overlapping where n falls between two sizes, instead of a call to memcpy */
static inline void copy(char *to, const char *from, Py_ssize_t n) {
    if (n > 32) {
        memcpy(to, from, (size_t)n);
    } else if (n >= 16) {
        char a[16], b[16];
        memcpy(a, from, 16);
        memcpy(b, from + n - 16, 16);
        memcpy(to, a, 16);
        memcpy(to + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, from, 8);
        memcpy(&b, from + n - 8, 8);
        memcpy(to, &a, 8);
        memcpy(to + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, from, 4);
        memcpy(&b, from + n - 4, 4);
        memcpy(to, &a, 4);
        memcpy(to + n - 4, &b, 4);
    } else {
        for (Py_ssize_t i = 0; i < n; i++)
            to[i] = from[i];
    }
}

/* the caller reserved the room */
static inline void put(Buffer *b, Piece p) {
    if (b->mode != COUNT)
        copy(b->data + b->size, p.text, p.len);
    b->size += p.len;
}

static inline void put_char(Buffer *b, char c) {
    if (b->mode != COUNT)
        b->data[b->size] = c;
    b->size++;
}

static int ascii(PyObject *s, Piece *out, const char *what) {
    if (!PyUnicode_Check(s) || !PyUnicode_IS_COMPACT_ASCII(s)) {
        PyErr_Format(PyExc_TypeError, "%s: an ASCII str is expected", what);
        return -1;
    }
    out->text = (const char *)PyUnicode_DATA(s);
    out->len = PyUnicode_GET_LENGTH(s);
    return 0;
}

/* an int in [0, limit) */
static int index_of(PyObject *o, Py_ssize_t limit, Py_ssize_t *out, const char *what) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: an int is expected", what);
        return -1;
    }
    Py_ssize_t v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v >= limit) {
        PyErr_Format(PyExc_ValueError, "%s: %zd is out of range", what, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* cards (a list or tuple of card numbers), each quoted code preceded by a comma */
static int put_cards(Buffer *b, PyObject *cards, const Piece *codes, Py_ssize_t n_codes,
                     Py_ssize_t *ends) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cards);
    PyObject **items = PySequence_Fast_ITEMS(cards);
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t c;
        if (index_of(items[j], n_codes, &c, "card") < 0 || reserve(b, 1 + codes[c].len) < 0)
            return -1;
        put_char(b, ',');
        put(b, codes[c]);
        if (ends)
            ends[j] = b->size;
    }
    return 0;
}

/* one item of the list: a comma before every item but the first (even an empty one) */
static int start_item(Buffer *b, Py_ssize_t len) {
    if (reserve(b, len + 1) < 0)
        return -1;
    if (b->items++)
        put_char(b, ',');
    return 0;
}

static int put_texts(Buffer *b, PyObject *texts, const char *what) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(texts); i++) {
        Piece p;
        if (ascii(PyList_GET_ITEM(texts, i), &p, what) < 0 || start_item(b, p.len) < 0)
            return -1;
        put(b, p);
    }
    return 0;
}

static int put_melds(Buffer *out, PyObject *blocks, PyObject *wilds, PyObject *ends,
                     Piece start, const Piece *codes, Py_ssize_t n_codes) {
    Py_ssize_t n_wilds = PyList_GET_SIZE(wilds);
    Buffer wild_text = {NULL, 0, 0, GROW, 0}, natural_text = {NULL, 0, 0, GROW, 0};
    Py_ssize_t *wild_end = PyMem_Calloc((size_t)n_wilds + 1, sizeof(Py_ssize_t));
    Py_ssize_t *natural_end = NULL;
    static char nothing[1];
    int result = -1;
    if (!wild_end) {
        PyErr_NoMemory();
        goto done;
    }
    /* each choice of wild cards written once: ",c1,c2" */
    for (Py_ssize_t i = 0; i < n_wilds; i++) {
        PyObject *w = PyList_GET_ITEM(wilds, i);
        if (!PyTuple_Check(w)) {
            PyErr_SetString(PyExc_TypeError, "wilds: tuples of card numbers are expected");
            goto done;
        }
        if (put_cards(&wild_text, w, codes, n_codes, NULL) < 0)
            goto done;
        wild_end[i + 1] = wild_text.size;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(blocks); k++) {
        PyObject *block = PyList_GET_ITEM(blocks, k);
        if (!PyTuple_Check(block) || PyTuple_GET_SIZE(block) != 3
                || !PyList_Check(PyTuple_GET_ITEM(block, 1))
                || !PyList_Check(PyTuple_GET_ITEM(block, 2))) {
            PyErr_SetString(PyExc_TypeError,
                            "blocks: (rank, list of naturals, list of segments) expected");
            goto done;
        }
        Py_ssize_t rank;
        Piece end;
        if (index_of(PyTuple_GET_ITEM(block, 0), PyList_GET_SIZE(ends), &rank, "rank") < 0
                || ascii(PyList_GET_ITEM(ends, rank), &end, "ends") < 0)
            goto done;
        PyObject *naturals = PyTuple_GET_ITEM(block, 1), *segments = PyTuple_GET_ITEM(block, 2);
        Py_ssize_t n_naturals = PyList_GET_SIZE(naturals);
        /* the block's naturals written once: ",n1,n2,...", and where each one ends */
        PyMem_Free(natural_end);
        natural_end = PyMem_Calloc((size_t)n_naturals + 1, sizeof(Py_ssize_t));
        if (!natural_end) {
            PyErr_NoMemory();
            goto done;
        }
        natural_text.size = 0;
        if (put_cards(&natural_text, naturals, codes, n_codes, natural_end + 1) < 0)
            goto done;
        for (Py_ssize_t s = 0; s < PyList_GET_SIZE(segments); s++) {
            PyObject *segment = PyList_GET_ITEM(segments, s);
            Py_ssize_t n, first, count;
            if (!PyTuple_Check(segment) || PyTuple_GET_SIZE(segment) != 3) {
                PyErr_SetString(PyExc_TypeError, "segments: (n, first, k) expected");
                goto done;
            }
            if (index_of(PyTuple_GET_ITEM(segment, 0), n_naturals + 1, &n, "n") < 0
                    || index_of(PyTuple_GET_ITEM(segment, 1), n_wilds + 1, &first, "first") < 0
                    || index_of(PyTuple_GET_ITEM(segment, 2), n_wilds - first + 1, &count,
                                "k") < 0)
                goto done;
            Piece prefix = {natural_text.data ? natural_text.data : nothing, natural_end[n]};
            const char *wild_base = wild_text.data ? wild_text.data : nothing;
            for (Py_ssize_t i = first; i < first + count; i++) {
                Piece wild = {wild_base + wild_end[i], wild_end[i + 1] - wild_end[i]};
                /* the cards: naturals then wild cards, the first one's comma dropped */
                Piece cards = prefix.len ? prefix : wild;
                Piece rest = prefix.len ? wild : (Piece){nothing, 0};
                if (cards.len) {
                    cards.text++;
                    cards.len--;
                }
                if (start_item(out, start.len + cards.len + rest.len + end.len) < 0)
                    goto done;
                put(out, start);
                put(out, cards);
                put(out, rest);
                put(out, end);
            }
        }
    }
    result = 0;
done:
    PyMem_Free(wild_end);
    PyMem_Free(natural_end);
    PyMem_Free(wild_text.data);
    PyMem_Free(natural_text.data);
    return result;
}

PyDoc_STRVAR(actions_text_doc,
"actions_text(codes, head, meld_start, blocks, wilds, ends, tail, discard_start, discards,\n"
"             discard_end) -> str\n\n"
"A legal-action list as JSON text: '[' + ','.join(items) + ']', the items in order:\n"
"head (each already JSON text); the melds of blocks, each meld_start + its cards' codes\n"
"(joined by commas) + ends[rank]; tail (JSON text); each discard's discard_start + its\n"
"card's code + discard_end. codes[card] is a card's quoted code. A block is (rank,\n"
"naturals, segments); a segment (n, first, k) stands for the melds of the first n\n"
"naturals with each of wilds[first:first + k].");

static PyObject *actions_text(PyObject *self, PyObject *args) {
    PyObject *quoted, *head, *start_text, *blocks, *wilds, *ends, *tail, *discard_text, *discards,
        *discard_end_text;
    if (!PyArg_ParseTuple(args, "O!O!UO!O!O!O!UO!U:actions_text", &PyTuple_Type, &quoted,
                          &PyList_Type, &head, &start_text, &PyList_Type, &blocks, &PyList_Type,
                          &wilds, &PyList_Type, &ends, &PyList_Type, &tail, &discard_text,
                          &PyList_Type, &discards, &discard_end_text))
        return NULL;
    Py_ssize_t n_codes = PyTuple_GET_SIZE(quoted);
    Piece *codes = PyMem_Calloc((size_t)n_codes + 1, sizeof(Piece));
    PyObject *result = NULL;
    Piece start, discard_start, discard_end;
    if (!codes) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t c = 0; c < n_codes; c++)
        if (ascii(PyTuple_GET_ITEM(quoted, c), &codes[c], "codes") < 0)
            goto fail;
    if (ascii(start_text, &start, "meld_start") < 0
            || ascii(discard_text, &discard_start, "discard_start") < 0
            || ascii(discard_end_text, &discard_end, "discard_end") < 0)
        goto fail;
    /* the first pass counts the bytes, the second writes them into the answer's str */
    Buffer out = {NULL, 0, 0, COUNT, 0};
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            result = PyUnicode_New(out.size, 127);
            if (!result)
                goto fail;
            out = (Buffer){(char *)PyUnicode_DATA(result), 0, out.size, FIXED, 0};
        }
        if (reserve(&out, 1) < 0)
            goto fail;
        put_char(&out, '[');
        if (put_texts(&out, head, "head") < 0
                || put_melds(&out, blocks, wilds, ends, start, codes, n_codes) < 0
                || put_texts(&out, tail, "tail") < 0)
            goto fail;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(discards); i++) {
            Py_ssize_t c;
            if (index_of(PyList_GET_ITEM(discards, i), n_codes, &c, "discards") < 0
                    || start_item(&out, discard_start.len + codes[c].len + discard_end.len) < 0)
                goto fail;
            put(&out, discard_start);
            put(&out, codes[c]);
            put(&out, discard_end);
        }
        if (reserve(&out, 1) < 0)
            goto fail;
        put_char(&out, ']');
    }
    if (out.size != out.cap) {
        PyErr_SetString(PyExc_SystemError, "actions_text: the text fell short of its count");
        goto fail;
    }
    PyMem_Free(codes);
    return result;
fail:
    Py_XDECREF(result);
    PyMem_Free(codes);
    return NULL;
}

static PyMethodDef methods[] = {
    {"actions_text", actions_text, METH_VARARGS, actions_text_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_text", "Legal-action lists written as JSON text (schema/text.py), canonical "
    "requests read from it (schema/canonical.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

/* schema/_read.c: the reader of canonical requests */
extern PyMethodDef read_methods[];
int read_init(void);

PyMODINIT_FUNC PyInit__text(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (read_init() < 0 || PyModule_AddFunctions(m, read_methods) < 0))
        Py_CLEAR(m);
    return m;
}
