/* Legal-action lists as JSON text: counted, then written straight into the answer's str; and
   states (engine.state.State), written into a buffer that grows, then copied (state_text).

   The native half of schema/text.py: the pieces of text that vary (card codes, rank and seat
   endings, a state's variant and options) come from Python; this file copies them in order,
   with a state's JSON keys and numbers. Its inputs are the engine's own values (a
   LegalActions' blocks and cards, a State), never request bytes, and every index is checked
   before use: a wrong input raises TypeError, ValueError or OverflowError, it never reads or
   writes out of bounds. tests/test_text.py holds its lists equal to engine.wire.actions_json,
   tests/test_state_text.py its states to orjson's text of engine.wire.state_to_data. */

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
"             discard_end, as_bytes=False) -> str (bytes with as_bytes)\n\n"
"A legal-action list as JSON text: '[' + ','.join(items) + ']', the items in order:\n"
"head (each already JSON text); the melds of blocks, each meld_start + its cards' codes\n"
"(joined by commas) + ends[rank]; tail (JSON text); each discard's discard_start + its\n"
"card's code + discard_end. codes[card] is a card's quoted code. A block is (rank,\n"
"naturals, segments); a segment (n, first, k) stands for the melds of the first n\n"
"naturals with each of wilds[first:first + k].");

static PyObject *actions_text(PyObject *self, PyObject *args) {
    PyObject *quoted, *head, *start_text, *blocks, *wilds, *ends, *tail, *discard_text, *discards,
        *discard_end_text;
    int as_bytes = 0;
    if (!PyArg_ParseTuple(args, "O!O!UO!O!O!O!UO!U|p:actions_text", &PyTuple_Type, &quoted,
                          &PyList_Type, &head, &start_text, &PyList_Type, &blocks, &PyList_Type,
                          &wilds, &PyList_Type, &ends, &PyList_Type, &tail, &discard_text,
                          &PyList_Type, &discards, &discard_end_text, &as_bytes))
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
            result = as_bytes ? PyBytes_FromStringAndSize(NULL, out.size)
                              : PyUnicode_New(out.size, 127);
            if (!result)
                goto fail;
            char *data = as_bytes ? PyBytes_AS_STRING(result) : (char *)PyUnicode_DATA(result);
            out = (Buffer){data, 0, out.size, FIXED, 0};
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

/* --- a state (engine.state.State) as JSON text ------------------------------------------ */

/* the field numbers of the engine's named tuples (tests/test_state_text.py holds them to the
   engine's _fields) */
enum { S_RULES, S_DEALER, S_SCORES, S_HANDS, S_HAND_SIZES, S_MELDS, S_BONUS, S_PILE, S_STOCK,
       S_STOCK_SIZE, S_TURN, S_SET_ASIDE, S_FIELDS };
enum { T_SEAT, T_PHASE, T_DRAWN, T_TOOK_PILE, T_PENDING, T_HELD, T_HELD_SIZE, T_ASKED,
       T_ASKED_THIS_DEAL, T_MELDED, T_STARTED, T_EXTENDED, T_WENT_OUT, T_CONCEALED,
       T_PARTNER_MELDED, T_STOCK_EXHAUSTED, T_PLAYED, T_GOING_OUT, T_FIELDS };
enum { M_RANK, M_CARDS, M_FIELDS = 4 };
enum { P_CARDS, P_TOP, P_SIZE, P_FROZEN, P_FIELDS };
/* rank texts: 13 ranks, then a wild meld's (rank -1), then a sequence's (ranks -10 and below) */
enum { N_RANKS = 13, WILD_TEXT = 13, REAL_TEXT = 14, RANK_TEXTS = 15 };

typedef struct {
    const Piece *codes;
    Py_ssize_t n_codes;
    const Piece *ranks;
} Tables;

static int put_piece(Buffer *b, const char *text, Py_ssize_t len) {
    if (reserve(b, len) < 0)
        return -1;
    put(b, (Piece){text, len});
    return 0;
}

static inline int comma(Buffer *b) {
    if (reserve(b, 1) < 0)
        return -1;
    put_char(b, ',');
    return 0;
}

/* a string literal, its length known when compiled */
#define lit(b, text) put_piece((b), (text), (Py_ssize_t)sizeof(text) - 1)

static PyObject *tuple_of(PyObject *o, Py_ssize_t size, const char *what) {
    if (!PyTuple_Check(o) || (size >= 0 && PyTuple_GET_SIZE(o) < size)) {
        PyErr_Format(PyExc_TypeError, "state_text: %s: a tuple is expected", what);
        return NULL;
    }
    return o;
}

/* an int (not a bool) as decimal digits */
static int integer(Buffer *b, PyObject *o, const char *what) {
    if (!PyLong_CheckExact(o)) {
        PyErr_Format(PyExc_TypeError, "state_text: %s: an int is expected", what);
        return -1;
    }
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    /* the digits from the end of the buffer (snprintf costs more than the rest of a state) */
    char digits[24];
    char *at = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--at = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--at = '-';
    Py_ssize_t n = digits + sizeof digits - at;
    if (reserve(b, n) < 0)
        return -1;
    put(b, (Piece){at, n});
    return 0;
}

static int boolean(Buffer *b, PyObject *o, const char *what) {
    if (o != Py_True && o != Py_False) {
        PyErr_Format(PyExc_TypeError, "state_text: %s: a bool is expected", what);
        return -1;
    }
    return o == Py_True ? lit(b, "true") : lit(b, "false");
}

/* a str that JSON writes as it is (ASCII, no quote, backslash or control character), quoted */
static int plain(Buffer *b, PyObject *o, const char *what) {
    Piece p;
    if (ascii(o, &p, what) < 0)
        return -1;
    for (Py_ssize_t i = 0; i < p.len; i++)
        if (p.text[i] == '"' || p.text[i] == '\\' || (unsigned char)p.text[i] < 0x20
                || p.text[i] == 0x7f) {
            PyErr_Format(PyExc_ValueError, "state_text: %s: a plain str is expected", what);
            return -1;
        }
    if (reserve(b, p.len + 2) < 0)
        return -1;
    put_char(b, '"');
    put(b, p);
    put_char(b, '"');
    return 0;
}

static int card(Buffer *b, PyObject *o, const Tables *t) {
    Py_ssize_t c;
    if (index_of(o, t->n_codes, &c, "state_text: card") < 0 || reserve(b, t->codes[c].len) < 0)
        return -1;
    put(b, t->codes[c]);
    return 0;
}

/* a tuple of card numbers as a list of quoted codes */
static int card_list(Buffer *b, PyObject *cards, const Tables *t, const char *what) {
    if (!tuple_of(cards, -1, what) || lit(b, "[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cards); i++)
        if ((i && comma(b) < 0) || card(b, PyTuple_GET_ITEM(cards, i), t) < 0)
            return -1;
    return lit(b, "]");
}

/* the int 0 (the interpreter's own, set by state_text's first call) */
static PyObject *zero;

/* a hand's counts (the number of each card) as the list of its cards' codes, in card order */
static int hand(Buffer *b, PyObject *counts, const Tables *t) {
    if (!tuple_of(counts, -1, "hand") || PyTuple_GET_SIZE(counts) > t->n_codes
            || lit(b, "[") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "state_text: hand: more counts than cards");
        return -1;
    }
    int first = 1;
    for (Py_ssize_t c = 0; c < PyTuple_GET_SIZE(counts); c++) {
        PyObject *count = PyTuple_GET_ITEM(counts, c);
        Py_ssize_t n;
        if (count == zero)  /* most of a hand's counts: CPython keeps one 0 */
            continue;
        if (index_of(count, 1000, &n, "state_text: count") < 0)
            return -1;
        for (; n > 0; n--) {
            if (reserve(b, t->codes[c].len + 1) < 0)
                return -1;
            if (!first)
                put_char(b, ',');
            first = 0;
            put(b, t->codes[c]);
        }
    }
    return lit(b, "]");
}

static int int_list(Buffer *b, PyObject *values, const char *what) {
    if (!tuple_of(values, -1, what) || lit(b, "[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(values); i++)
        if ((i && comma(b) < 0) || integer(b, PyTuple_GET_ITEM(values, i), what) < 0)
            return -1;
    return lit(b, "]");
}

static int rank(Buffer *b, PyObject *o, const Tables *t) {
    if (!PyLong_CheckExact(o)) {
        PyErr_SetString(PyExc_TypeError, "state_text: rank: an int is expected");
        return -1;
    }
    long r = PyLong_AsLong(o);
    if (r == -1 && PyErr_Occurred())
        return -1;
    Py_ssize_t at = r >= 0 && r < N_RANKS ? r : r == -1 ? WILD_TEXT : r <= -10 ? REAL_TEXT : -1;
    if (at < 0) {
        PyErr_Format(PyExc_ValueError, "state_text: rank %ld is out of range", r);
        return -1;
    }
    if (reserve(b, t->ranks[at].len) < 0)
        return -1;
    put(b, t->ranks[at]);
    return 0;
}

/* melds (tuples of Meld) as [{"rank":...,"cards":[...]},...] */
static int meld_list(Buffer *b, PyObject *melds, const Tables *t) {
    if (!tuple_of(melds, -1, "melds") || lit(b, "[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(melds); i++) {
        PyObject *m = tuple_of(PyTuple_GET_ITEM(melds, i), M_FIELDS, "meld");
        if (!m || (i && comma(b) < 0) || lit(b, "{\"rank\":") < 0
                || rank(b, PyTuple_GET_ITEM(m, M_RANK), t) < 0 || lit(b, ",\"cards\":") < 0
                || card_list(b, PyTuple_GET_ITEM(m, M_CARDS), t, "meld cards") < 0
                || lit(b, "}") < 0)
            return -1;
    }
    return lit(b, "]");
}

static int size_only(Buffer *b, PyObject *size) {
    return lit(b, "{\"size\":") < 0 || integer(b, size, "size") < 0 ? -1 : lit(b, "}");
}

static int write_turn(Buffer *b, PyObject *turn, const Tables *t) {
#define F(i) PyTuple_GET_ITEM(turn, i)
    int over = PyUnicode_Check(F(T_PHASE)) && PyUnicode_CompareWithASCIIString(F(T_PHASE),
                                                                               "over") == 0;
    if (lit(b, ",\"turn\":{\"seat\":") < 0 || integer(b, F(T_SEAT), "seat") < 0
            || lit(b, ",\"phase\":") < 0 || plain(b, F(T_PHASE), "phase") < 0)
        return -1;
    for (int flag = T_DRAWN; flag <= T_TOOK_PILE; flag++) {
        int on = PyObject_IsTrue(F(flag));
        if (on < 0 || (on && (flag == T_DRAWN ? lit(b, ",\"drawn\":true")
                              : lit(b, ",\"took_pile\":true")) < 0))
            return -1;
    }
    if (!tuple_of(F(T_PENDING), -1, "pending")
            || (PyTuple_GET_SIZE(F(T_PENDING)) && (lit(b, ",\"pending\":") < 0
                                                   || meld_list(b, F(T_PENDING), t) < 0)))
        return -1;
    int held = PyObject_IsTrue(F(T_HELD_SIZE));
    if (held < 0 || (held && (lit(b, ",\"held\":") < 0
                              || (F(T_HELD) == Py_None ? size_only(b, F(T_HELD_SIZE))
                                  : card_list(b, F(T_HELD), t, "held")) < 0)))
        return -1;
    if (lit(b, ",\"asked\":") < 0
            || (F(T_ASKED) == Py_None ? lit(b, "null") : plain(b, F(T_ASKED), "asked")) < 0
            || lit(b, ",\"asked_this_deal\":") < 0
            || int_list(b, F(T_ASKED_THIS_DEAL), "asked_this_deal") < 0
            || lit(b, ",\"melded\":") < 0 || int_list(b, F(T_MELDED), "melded") < 0
            || lit(b, ",\"played\":") < 0 || int_list(b, F(T_PLAYED), "played") < 0
            || !tuple_of(F(T_STARTED), -1, "started"))
        return -1;
    if (PyTuple_GET_SIZE(F(T_STARTED))) {
        if (lit(b, ",\"started\":[") < 0)
            return -1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(F(T_STARTED)); i++)
            if ((i && comma(b) < 0) || rank(b, PyTuple_GET_ITEM(F(T_STARTED), i), t) < 0)
                return -1;
        if (lit(b, "]") < 0)
            return -1;
    }
    int extended = PyObject_IsTrue(F(T_EXTENDED));
    if (extended < 0 || (extended && lit(b, ",\"extended\":true") < 0))
        return -1;
    int going_out = PyObject_IsTrue(F(T_GOING_OUT));
    if (going_out < 0 || (going_out && lit(b, ",\"going_out\":true") < 0))
        return -1;
    if (over && (lit(b, ",\"went_out\":") < 0
                 || (F(T_WENT_OUT) == Py_None ? lit(b, "null")
                     : integer(b, F(T_WENT_OUT), "went_out")) < 0
                 || lit(b, ",\"concealed\":") < 0 || boolean(b, F(T_CONCEALED), "concealed") < 0
                 || lit(b, ",\"partner_melded\":") < 0
                 || boolean(b, F(T_PARTNER_MELDED), "partner_melded") < 0
                 || lit(b, ",\"stock_exhausted\":") < 0
                 || boolean(b, F(T_STOCK_EXHAUSTED), "stock_exhausted") < 0))
        return -1;
    return lit(b, "}");
#undef F
}

static int write_state(Buffer *b, PyObject *head, PyObject *state, const Tables *t) {
#define F(i) PyTuple_GET_ITEM(state, i)
    Piece h;
    if (!tuple_of(state, S_FIELDS, "state") || ascii(head, &h, "state_text: head") < 0
            || reserve(b, h.len) < 0)
        return -1;
    put(b, h);
    PyObject *hands = tuple_of(F(S_HANDS), -1, "hands");
    PyObject *sizes = tuple_of(F(S_HAND_SIZES), -1, "hand_sizes");
    if (!hands || !sizes || PyTuple_GET_SIZE(sizes) != PyTuple_GET_SIZE(hands)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "state_text: a size for each hand is expected");
        return -1;
    }
    if (integer(b, F(S_DEALER), "dealer") < 0 || lit(b, ",\"scores\":") < 0
            || int_list(b, F(S_SCORES), "scores") < 0 || lit(b, ",\"hands\":[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(hands); i++) {
        PyObject *counts = PyTuple_GET_ITEM(hands, i);
        if ((i && comma(b) < 0)
                || (counts == Py_None ? size_only(b, PyTuple_GET_ITEM(sizes, i))
                    : hand(b, counts, t)) < 0)
            return -1;
    }
    PyObject *melds = tuple_of(F(S_MELDS), -1, "melds");
    if (!melds || lit(b, "],\"melds\":[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(melds); i++)
        if ((i && comma(b) < 0) || meld_list(b, PyTuple_GET_ITEM(melds, i), t) < 0)
            return -1;
    PyObject *bonus = tuple_of(F(S_BONUS), -1, "bonus");
    if (!bonus || lit(b, "],\"bonus_cards\":[") < 0)
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bonus); i++)
        if ((i && comma(b) < 0) || card_list(b, PyTuple_GET_ITEM(bonus, i), t, "bonus") < 0)
            return -1;
    PyObject *pile = tuple_of(F(S_PILE), P_FIELDS, "pile");
    if (!pile || lit(b, "],\"discard\":") < 0)
        return -1;
    if (PyTuple_GET_ITEM(pile, P_CARDS) != Py_None) {
        if (card_list(b, PyTuple_GET_ITEM(pile, P_CARDS), t, "discard") < 0)
            return -1;
    } else if (lit(b, "{\"top\":") < 0
               || (PyTuple_GET_ITEM(pile, P_TOP) == Py_None ? lit(b, "null")
                   : card(b, PyTuple_GET_ITEM(pile, P_TOP), t)) < 0
               || lit(b, ",\"size\":") < 0 || integer(b, PyTuple_GET_ITEM(pile, P_SIZE), "size") < 0
               || lit(b, ",\"frozen\":") < 0
               || boolean(b, PyTuple_GET_ITEM(pile, P_FROZEN), "frozen") < 0 || lit(b, "}") < 0) {
        return -1;
    }
    if (lit(b, ",\"stock\":") < 0
            || (F(S_STOCK) == Py_None ? size_only(b, F(S_STOCK_SIZE))
                : card_list(b, F(S_STOCK), t, "stock")) < 0)
        return -1;
    PyObject *turn = tuple_of(F(S_TURN), T_FIELDS, "turn");
    PyObject *aside = tuple_of(F(S_SET_ASIDE), -1, "set_aside");
    if (!turn || !aside || write_turn(b, turn, t) < 0
            || (PyTuple_GET_SIZE(aside) && (lit(b, ",\"set_aside\":") < 0
                                            || card_list(b, aside, t, "set_aside") < 0)))
        return -1;
    return lit(b, "}");
#undef F
}

PyDoc_STRVAR(state_text_doc,
"state_text(codes, ranks, head, state) -> str\n\n"
"The state (engine.state.State) as the compact JSON text orjson writes for\n"
"engine.wire.state_to_data(state), from head (the text up to the dealer's number: variant and\n"
"options). codes[card] is a card's quoted code; ranks: the 13 ranks' quoted codes, then a\n"
"wild meld's, then a suit sequence's. Raises TypeError or ValueError on anything else than\n"
"such a state (a str to quote that is not plain ASCII, a number out of range).");

static PyObject *state_text(PyObject *self, PyObject *args) {
    PyObject *quoted, *rank_texts, *head, *state, *result = NULL;
    Buffer out = {NULL, 0, 0, GROW, 0};
    if (!PyArg_ParseTuple(args, "O!O!UO!:state_text", &PyTuple_Type, &quoted, &PyTuple_Type,
                          &rank_texts, &head, &PyTuple_Type, &state))
        return NULL;
    if (!zero && !(zero = PyLong_FromLong(0)))
        return NULL;
    if (PyTuple_GET_SIZE(rank_texts) != RANK_TEXTS) {
        PyErr_SetString(PyExc_ValueError, "state_text: ranks: 15 texts are expected");
        return NULL;
    }
    Py_ssize_t n_codes = PyTuple_GET_SIZE(quoted);
    Piece *codes = PyMem_Calloc((size_t)n_codes + 1, sizeof(Piece)), ranks[RANK_TEXTS];
    if (!codes)
        return PyErr_NoMemory();
    for (Py_ssize_t c = 0; c < n_codes; c++)
        if (ascii(PyTuple_GET_ITEM(quoted, c), &codes[c], "state_text: codes") < 0)
            goto fail;
    for (Py_ssize_t r = 0; r < RANK_TEXTS; r++)
        if (ascii(PyTuple_GET_ITEM(rank_texts, r), &ranks[r], "state_text: ranks") < 0)
            goto fail;
    Tables t = {codes, n_codes, ranks};
    /* one pass into a buffer that grows (a state is a few KB; counting first would read every
       number twice), then copied into the answer's str */
    if (reserve(&out, 4096) < 0 || write_state(&out, head, state, &t) < 0)
        goto fail;
    result = PyUnicode_New(out.size, 127);
    if (!result)
        goto fail;
    memcpy(PyUnicode_DATA(result), out.data, (size_t)out.size);
    PyMem_Free(out.data);
    PyMem_Free(codes);
    return result;
fail:
    PyMem_Free(out.data);
    PyMem_Free(codes);
    return NULL;
}

static PyMethodDef methods[] = {
    {"actions_text", actions_text, METH_VARARGS, actions_text_doc},
    {"state_text", state_text, METH_VARARGS, state_text_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_text", "Legal-action lists and states written as JSON text (schema/text.py), canonical "
    "requests read from it (schema/canonical.py), typed GraphQL lists projected from it "
    "(schema/_project.c).", -1,
    methods, NULL, NULL, NULL, NULL,
};

/* schema/_read.c: the reader of canonical requests; schema/_project.c: typed GraphQL lists */
extern PyMethodDef read_methods[];
extern PyMethodDef project_methods[];
int read_init(void);

PyMODINIT_FUNC PyInit__text(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && (read_init() < 0 || PyModule_AddFunctions(m, read_methods) < 0
                      || PyModule_AddFunctions(m, project_methods) < 0))
        Py_CLEAR(m);
    return m;
}
