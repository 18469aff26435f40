/* Requests in canonical form read straight into the data the engine reads: the native half of
   schema/canonical.py's fast path (docs/performance.md).

   read_request(body, kind) reads a `validate`, `legal-actions`, `score` (kind 0), `check`,
   `apply` (kind 1) or `view` (kind 2) request body. It accepts only what schema/canonical.py's
   msgspec structs accept, and less: ASCII strings without escapes, integers without sign
   tricks, each field at most once, canonical card codes and ranks, every bound of the wire
   models. For such a body it returns what canonical.request returns, every default filled in
   and every key in the models' order, except that each list of cards is a tuple of the
   engine's card numbers (the engine reads those as they are, with no look-up per card). For
   any other body it returns None, and the msgspec structs, then the pydantic models, decide
   and explain. It never recurses on what the body says (the shape is fixed), reads nothing
   past the body's end, and keeps no state between calls but the card table set once by
   set_cards and the last options object it read (its text and a copy of its dict, see
   options). tests/test_read.py holds it to canonical.request.

   counts and over count cards for the engine (engine.cards.count_with installs them): a
   hand's counts, and whether a state shows some card more often than the deck holds it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_CARDS 500  /* models: a list of cards */
#define MAX_SEATS 8    /* hands, scores, melds, bonus_cards, a list of seats */
#define MAX_MELDS 20   /* a side's melds, the pending ones, the ranks started */
#define MAX_OPTIONS 32
#define MAX_NAME 64
#define MAX_ACTIONS 200
#define MAX_SIZE 1000
#define MAX_SCORE 1000000

/* the card table: card[c0][c1] is 1 + the engine's number of the code c0 c1, 0 for no card */
static int16_t card_number[128][128];
static PyObject *card_text[128][128];  /* the code's str, for a single card (a pile's top) */
static PyObject *number[256];  /* the ints 0 .. 255, the engine's card numbers */
static int cards_set = 0;

/* every key and fixed string value, interned once */
enum Word {
    W_STATE, W_ACTIONS, W_SEAT, W_VARIANT, W_OPTIONS, W_DEALER, W_SCORES, W_HANDS, W_MELDS,
    W_BONUS_CARDS, W_DISCARD, W_STOCK, W_TURN, W_SET_ASIDE, W_SIZE, W_TOP, W_FROZEN, W_RANK,
    W_CARDS, W_PHASE, W_DRAWN, W_TOOK_PILE, W_PENDING, W_HELD, W_ASKED, W_ASKED_THIS_DEAL,
    W_MELDED, W_STARTED, W_EXTENDED, W_GOING_OUT, W_WENT_OUT, W_CONCEALED, W_PARTNER_MELDED,
    W_STOCK_EXHAUSTED, W_PLAYED, W_TYPE, W_CARD, W_ALLOW, W_CLASSIC,
    W_DRAW, W_PLAY, W_ANSWER, W_OVER, W_WAITING, W_YES, W_NO, W_TAKE_PILE, W_MELD, W_ASK,
    W_WILD, W_REAL, N_WORDS
};
static const char *const WORDS[N_WORDS] = {
    "state", "actions", "seat", "variant", "options", "dealer", "scores", "hands", "melds",
    "bonus_cards", "discard", "stock", "turn", "set_aside", "size", "top", "frozen", "rank",
    "cards", "phase", "drawn", "took_pile", "pending", "held", "asked", "asked_this_deal",
    "melded", "started", "extended", "going_out", "went_out", "concealed", "partner_melded",
    "stock_exhausted", "played", "type", "card", "allow", "classic",
    "draw", "play", "answer", "over", "waiting", "yes", "no", "take-pile", "meld", "ask",
    "wild", "real",
};
static PyObject *word[N_WORDS];
static PyObject *rank_text[128];  /* "A", "K", ... "3" by their character */
static const char RANKS[] = "AKQJT9876543";

/* the body being read; a function that returns NULL (or -1) without an exception declines */
typedef struct {
    const char *p, *end;
} Src;

typedef struct {
    const char *text;
    Py_ssize_t len;
} Token;

static inline void ws(Src *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

/* the next character after white space, without taking it (0 at the end) */
static inline char peek(Src *s) {
    ws(s);
    return s->p < s->end ? *s->p : 0;
}

static inline int take(Src *s, char c) {
    if (peek(s) != c)
        return 0;
    s->p++;
    return 1;
}

/* a string of printable ASCII without escapes; its text without the quotes */
static int string(Src *s, Token *out) {
    if (!take(s, '"'))
        return 0;
    const char *start = s->p;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = (unsigned char)*s->p;
        if (c < 0x20 || c >= 0x7f || c == '\\')
            return 0;
        s->p++;
    }
    if (s->p >= s->end)
        return 0;
    out->text = start;
    out->len = s->p - start;
    s->p++;
    return 1;
}

static inline int is(const Token *t, enum Word w) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(word[w]);
    return t->len == n && memcmp(t->text, PyUnicode_DATA(word[w]), (size_t)n) == 0;
}

/* an integer in [lo, hi]: no sign but '-', no leading zeros, no fraction or exponent */
static int integer(Src *s, long lo, long hi, long *out) {
    ws(s);
    const char *p = s->p;
    int negative = 0;
    if (p < s->end && *p == '-') {
        negative = 1;
        p++;
    }
    if (p >= s->end || *p < '0' || *p > '9')
        return 0;
    if (*p == '0' && (negative || (p + 1 < s->end && p[1] >= '0' && p[1] <= '9')))
        return 0;
    long v = 0;
    int digits = 0;
    while (p < s->end && *p >= '0' && *p <= '9') {
        if (++digits > 9)
            return 0;
        v = v * 10 + (*p - '0');
        p++;
    }
    if (p < s->end && (*p == '.' || *p == 'e' || *p == 'E'))
        return 0;
    if (negative)
        v = -v;
    if (v < lo || v > hi)
        return 0;
    s->p = p;
    *out = v;
    return 1;
}

static int literal(Src *s, const char *text, Py_ssize_t n) {
    ws(s);
    if (s->end - s->p < n || memcmp(s->p, text, (size_t)n) != 0)
        return 0;
    s->p += n;
    return 1;
}

/* true or false, as a new reference */
static PyObject *boolean(Src *s) {
    if (literal(s, "true", 4))
        Py_RETURN_TRUE;
    if (literal(s, "false", 5))
        Py_RETURN_FALSE;
    return NULL;
}

static int null(Src *s) {
    return literal(s, "null", 4);
}

static PyObject *bounded(Src *s, long lo, long hi) {
    long v;
    return integer(s, lo, hi, &v) ? PyLong_FromLong(v) : NULL;
}

/* a card code: its engine number (or -1) */
static int card(const Token *t) {
    if (t->len != 2)
        return -1;
    return card_number[(unsigned char)t->text[0]][(unsigned char)t->text[1]] - 1;
}

/* one card as its code's str */
static PyObject *card_str(Src *s) {
    Token t;
    if (!string(s, &t) || card(&t) < 0)
        return NULL;
    PyObject *out = card_text[(unsigned char)t.text[0]][(unsigned char)t.text[1]];
    Py_INCREF(out);
    return out;
}

/* the next card of a list: its number, or -1. A code as the service writes it ("QS", no
   space before it) is read in place; anything else as any string */
static inline int next_card(Src *s) {
    const char *p = s->p;
    if (s->end - p >= 4 && p[0] == '"' && p[3] == '"' && (unsigned char)p[1] < 128
            && (unsigned char)p[2] < 128) {
        s->p = p + 4;
        return card_number[(unsigned char)p[1]][(unsigned char)p[2]] - 1;
    }
    Token t;
    return string(s, &t) ? card(&t) : -1;
}

/* a list of at least `least` cards: a tuple of card numbers */
static PyObject *cards(Src *s, Py_ssize_t least) {
    int16_t got[MAX_CARDS];
    Py_ssize_t n = 0;
    if (!take(s, '['))
        return NULL;
    if (!take(s, ']')) {
        do {
            int c;
            ws(s);
            if (n == MAX_CARDS || (c = next_card(s)) < 0)
                return NULL;
            got[n++] = (int16_t)c;
        } while (take(s, ','));
        if (!take(s, ']'))
            return NULL;
    }
    if (n < least)
        return NULL;
    PyObject *out = PyTuple_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(out, i, Py_NewRef(number[got[i]]));
    return out;
}

/* a rank: A K Q J T 9 ... 3, wild or real, as its interned str */
static PyObject *rank(Src *s) {
    Token t;
    if (!string(s, &t))
        return NULL;
    PyObject *out = NULL;
    if (t.len == 1 && (unsigned char)t.text[0] < 128)
        out = rank_text[(unsigned char)t.text[0]];
    else if (is(&t, W_WILD))
        out = word[W_WILD];
    else if (is(&t, W_REAL))
        out = word[W_REAL];
    Py_XINCREF(out);
    return out;
}

/* a name: a string of at most 64 characters, as a new str */
static PyObject *name(Src *s) {
    Token t;
    if (!string(s, &t) || t.len > MAX_NAME)
        return NULL;
    return PyUnicode_FromStringAndSize(t.text, t.len);
}

/* an empty dict with room for n keys: sized once, where PyDict_New's grows twice for a state's
   dozen keys and three times for a turn's 17 (each growth inserts every key again). The sizing
   call is CPython's own, outside its stable API (in its headers from 3.11 to 3.14 at least):
   after those, PyDict_New. */
static PyObject *new_dict(int n) {
#if PY_VERSION_HEX < 0x030F0000
    return _PyDict_NewPresized(n);
#else
    (void)n;
    return PyDict_New();
#endif
}

/* a dict of the given keys and values (new references, all set), in that order; the values
   are released either way */
static PyObject *dict_of(const enum Word *keys, PyObject **values, int n) {
    PyObject *out = new_dict(n);
    for (int i = 0; i < n; i++) {
        if (out && PyDict_SetItem(out, word[keys[i]], values[i]) < 0)
            Py_CLEAR(out);
        Py_DECREF(values[i]);
    }
    return out;
}

static void release(PyObject **values, int n) {
    for (int i = 0; i < n; i++)
        Py_CLEAR(values[i]);
}

/* the fields of an object: for each key, `field` reads its value into values[index] (which
   must still be empty: a repeated key declines) and returns 1, or 0 to decline */
typedef int (*Field)(Src *s, const Token *key, PyObject **values, void *ctx);

static int object(Src *s, PyObject **values, int n, Field field, void *ctx) {
    if (!take(s, '{'))
        return 0;
    if (take(s, '}'))
        return 1;
    do {
        Token key;
        if (!string(s, &key) || !take(s, ':') || !field(s, &key, values, ctx))
            goto fail;
    } while (take(s, ','));
    if (take(s, '}'))
        return 1;
fail:
    release(values, n);
    return 0;
}

/* values[i] read by `read`, declining a repeated key */
#define READ(i, read) (values[i] == NULL && (values[i] = (read)) != NULL)

/* ------------------------------------------------------------------ {"size": n} */

static int size_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    return is(key, W_SIZE) && READ(0, bounded(s, 0, MAX_SIZE));
}

/* a list of cards (a tuple) or {"size": n} (a dict) */
static PyObject *cards_or_size(Src *s) {
    if (peek(s) == '[')
        return cards(s, 0);
    PyObject *values[1] = {NULL};
    if (!object(s, values, 1, size_field, NULL) || values[0] == NULL)
        return NULL;
    static const enum Word keys[] = {W_SIZE};
    return dict_of(keys, values, 1);
}

/* ------------------------------------------------------------------ the pile's view */

static int pile_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    if (is(key, W_TOP)) {
        if (values[0] != NULL)
            return 0;
        if (null(s)) {
            Py_INCREF(Py_None);
            values[0] = Py_None;
            return 1;
        }
        return (values[0] = card_str(s)) != NULL;
    }
    if (is(key, W_SIZE))
        return READ(1, bounded(s, 0, MAX_SIZE));
    if (is(key, W_FROZEN))
        return READ(2, boolean(s));
    return 0;
}

static PyObject *pile(Src *s) {
    if (peek(s) == '[')
        return cards(s, 0);
    PyObject *values[3] = {NULL, NULL, NULL};
    if (!object(s, values, 3, pile_field, NULL))
        return NULL;
    if (values[1] == NULL) {
        release(values, 3);
        return NULL;
    }
    if (values[0] == NULL) {
        Py_INCREF(Py_None);
        values[0] = Py_None;
    }
    if (values[2] == NULL) {
        Py_INCREF(Py_False);
        values[2] = Py_False;
    }
    static const enum Word keys[] = {W_TOP, W_SIZE, W_FROZEN};
    return dict_of(keys, values, 3);
}

/* ------------------------------------------------------------------ lists */

/* a list of at most `most` items read by `item` */
static PyObject *list(Src *s, Py_ssize_t least, Py_ssize_t most, PyObject *(*item)(Src *)) {
    if (!take(s, '['))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    if (!take(s, ']')) {
        do {
            PyObject *x;
            if (PyList_GET_SIZE(out) == most || (x = item(s)) == NULL)
                goto fail;
            int failed = PyList_Append(out, x);
            Py_DECREF(x);
            if (failed < 0)
                goto fail;
        } while (take(s, ','));
        if (!take(s, ']'))
            goto fail;
    }
    if (PyList_GET_SIZE(out) >= least)
        return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *seat(Src *s) {
    return bounded(s, 0, MAX_SEATS - 1);
}

static PyObject *score(Src *s) {
    return bounded(s, -MAX_SCORE, MAX_SCORE);
}

static PyObject *seats(Src *s) {
    return list(s, 0, MAX_SEATS, seat);
}

static PyObject *some_cards(Src *s) {
    return cards(s, 1);
}

static int meld_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    if (is(key, W_RANK))
        return READ(0, rank(s));
    if (is(key, W_CARDS))
        return READ(1, some_cards(s));
    return 0;
}

static PyObject *meld(Src *s) {
    PyObject *values[2] = {NULL, NULL};
    if (!object(s, values, 2, meld_field, NULL))
        return NULL;
    if (values[0] == NULL || values[1] == NULL) {
        release(values, 2);
        return NULL;
    }
    static const enum Word keys[] = {W_RANK, W_CARDS};
    return dict_of(keys, values, 2);
}

static PyObject *melds(Src *s) {
    return list(s, 0, MAX_MELDS, meld);
}

static PyObject *plain_cards(Src *s) {
    return cards(s, 0);
}

static PyObject *ranks(Src *s) {
    return list(s, 0, MAX_MELDS, rank);
}

/* ------------------------------------------------------------------ the turn */

enum TurnField {
    T_SEAT, T_PHASE, T_DRAWN, T_TOOK_PILE, T_PENDING, T_HELD, T_ASKED, T_ASKED_THIS_DEAL,
    T_MELDED, T_STARTED, T_EXTENDED, T_GOING_OUT, T_WENT_OUT, T_CONCEALED, T_PARTNER_MELDED,
    T_STOCK_EXHAUSTED, T_PLAYED, N_TURN
};
static const enum Word TURN_KEYS[N_TURN] = {
    W_SEAT, W_PHASE, W_DRAWN, W_TOOK_PILE, W_PENDING, W_HELD, W_ASKED, W_ASKED_THIS_DEAL,
    W_MELDED, W_STARTED, W_EXTENDED, W_GOING_OUT, W_WENT_OUT, W_CONCEALED, W_PARTNER_MELDED,
    W_STOCK_EXHAUSTED, W_PLAYED,
};

/* one of the words first .. last, as its interned str */
static PyObject *one_of(Src *s, enum Word first, enum Word last) {
    Token t;
    if (!string(s, &t))
        return NULL;
    for (int w = (int)first; w <= (int)last; w++)
        if (is(&t, (enum Word)w)) {
            Py_INCREF(word[w]);
            return word[w];
        }
    return NULL;
}

/* a value or null */
static PyObject *or_none(Src *s, PyObject *(*read)(Src *)) {
    if (null(s)) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return read(s);
}

static PyObject *asked(Src *s) {
    return one_of(s, W_WAITING, W_NO);
}

static int turn_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    int i;
    for (i = 0; i < N_TURN; i++)
        if (is(key, TURN_KEYS[i]))
            break;
    switch (i) {
    case T_SEAT: return READ(i, seat(s));
    case T_PHASE: return READ(i, one_of(s, W_DRAW, W_OVER));
    case T_PENDING: return READ(i, melds(s));
    case T_HELD: return READ(i, cards_or_size(s));
    case T_ASKED: return READ(i, or_none(s, asked));
    case T_ASKED_THIS_DEAL: case T_PLAYED: return READ(i, seats(s));
    case T_MELDED: return READ(i, or_none(s, seats));
    case T_STARTED: return READ(i, ranks(s));
    case T_WENT_OUT: return READ(i, or_none(s, seat));
    case T_DRAWN: case T_TOOK_PILE: case T_EXTENDED: case T_GOING_OUT: case T_CONCEALED:
    case T_PARTNER_MELDED: case T_STOCK_EXHAUSTED: return READ(i, boolean(s));
    default: return 0;
    }
}

static PyObject *turn(Src *s) {
    PyObject *values[N_TURN] = {NULL};
    if (!object(s, values, N_TURN, turn_field, NULL))
        return NULL;
    if (values[T_SEAT] == NULL || values[T_PHASE] == NULL) {
        release(values, N_TURN);
        return NULL;
    }
    for (int i = 0; i < N_TURN; i++) {
        if (values[i] != NULL)
            continue;
        switch (i) {
        case T_PENDING: case T_ASKED_THIS_DEAL: case T_STARTED: case T_PLAYED:
            values[i] = PyList_New(0);
            break;
        case T_HELD:
            values[i] = PyTuple_New(0);
            break;
        case T_ASKED: case T_MELDED: case T_WENT_OUT:
            Py_INCREF(Py_None);
            values[i] = Py_None;
            break;
        default:
            Py_INCREF(Py_False);
            values[i] = Py_False;
        }
        if (values[i] == NULL) {
            release(values, N_TURN);
            return NULL;
        }
    }
    return dict_of(TURN_KEYS, values, N_TURN);
}

/* ------------------------------------------------------------------ the state */

enum StateField {
    S_VARIANT, S_OPTIONS, S_DEALER, S_SCORES, S_HANDS, S_MELDS, S_BONUS_CARDS, S_DISCARD,
    S_STOCK, S_TURN, S_SET_ASIDE, N_STATE
};
static const enum Word STATE_KEYS[N_STATE] = {
    W_VARIANT, W_OPTIONS, W_DEALER, W_SCORES, W_HANDS, W_MELDS, W_BONUS_CARDS, W_DISCARD,
    W_STOCK, W_TURN, W_SET_ASIDE,
};

/* an option's value: true, false, a score, a name or null (the variant's default) */
static PyObject *option(Src *s) {
    char c = peek(s);
    if (c == 't' || c == 'f')
        return boolean(s);
    if (c == '"')
        return name(s);
    return or_none(s, score);
}

/* the text of the last options object read, '{' to '}', and a copy of its dict: a client's
   states name the same options request after request, and a body that repeats the text at
   that place reads as the same dict, copied (its keys and values are the same immutable
   objects), without making, hashing and inserting every name again */
#define MAX_OPTIONS_TEXT 4096
static char last_options_text[MAX_OPTIONS_TEXT];
static Py_ssize_t last_options_len;
static PyObject *last_options;

/* {name: option, ...}, at most 32, in the sender's order */
static PyObject *options(Src *s) {
    ws(s);
    const char *start = s->p;
    if (last_options != NULL && s->end - start >= last_options_len
            && memcmp(start, last_options_text, (size_t)last_options_len) == 0) {
        s->p += last_options_len;
        return PyDict_Copy(last_options);
    }
    if (!take(s, '{'))
        return NULL;
    PyObject *out = PyDict_New();
    if (!out || take(s, '}'))
        return out;
    do {
        PyObject *key, *value;
        if (PyDict_GET_SIZE(out) == MAX_OPTIONS || (key = name(s)) == NULL)
            goto fail;
        if (!take(s, ':') || (value = option(s)) == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        int seen = PyDict_Contains(out, key);
        int failed = seen != 0 || PyDict_SetItem(out, key, value) < 0;
        Py_DECREF(key);
        Py_DECREF(value);
        if (failed)
            goto fail;
    } while (take(s, ','));
    if (take(s, '}')) {
        Py_ssize_t len = s->p - start;
        PyObject *kept = len <= MAX_OPTIONS_TEXT ? PyDict_Copy(out) : NULL;
        if (kept == NULL) {
            PyErr_Clear();  /* not kept: read again next time */
            Py_CLEAR(last_options);
            return out;
        }
        memcpy(last_options_text, start, (size_t)len);
        last_options_len = len;
        Py_XSETREF(last_options, kept);
        return out;
    }
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *hands(Src *s) {
    return list(s, 0, MAX_SEATS, cards_or_size);
}

static PyObject *sides_melds(Src *s) {
    return list(s, 0, MAX_SEATS, melds);
}

static PyObject *bonus_cards(Src *s) {
    return list(s, 0, MAX_SEATS, plain_cards);
}

static PyObject *scores(Src *s) {
    return list(s, 0, MAX_SEATS, score);
}

static int state_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    int i;
    for (i = 0; i < N_STATE; i++)
        if (is(key, STATE_KEYS[i]))
            break;
    switch (i) {
    case S_VARIANT: return READ(i, name(s));
    case S_OPTIONS: return READ(i, options(s));
    case S_DEALER: return READ(i, seat(s));
    case S_SCORES: return READ(i, scores(s));
    case S_HANDS: return READ(i, hands(s));
    case S_MELDS: return READ(i, sides_melds(s));
    case S_BONUS_CARDS: return READ(i, bonus_cards(s));
    case S_DISCARD: return READ(i, pile(s));
    case S_STOCK: return READ(i, cards_or_size(s));
    case S_TURN: return READ(i, turn(s));
    case S_SET_ASIDE: return READ(i, plain_cards(s));
    default: return 0;
    }
}

static PyObject *state(Src *s) {
    PyObject *values[N_STATE] = {NULL};
    if (!object(s, values, N_STATE, state_field, NULL))
        return NULL;
    for (int i = S_SCORES; i <= S_TURN; i++)
        if (values[i] == NULL) {
            release(values, N_STATE);
            return NULL;
        }
    if (values[S_VARIANT] == NULL) {
        Py_INCREF(word[W_CLASSIC]);
        values[S_VARIANT] = word[W_CLASSIC];
    }
    if (values[S_OPTIONS] == NULL)
        values[S_OPTIONS] = PyDict_New();
    if (values[S_DEALER] == NULL)
        values[S_DEALER] = PyLong_FromLong(0);
    if (values[S_SET_ASIDE] == NULL)
        values[S_SET_ASIDE] = PyTuple_New(0);
    if (values[S_OPTIONS] == NULL || values[S_SET_ASIDE] == NULL) {
        release(values, N_STATE);
        return NULL;
    }
    return dict_of(STATE_KEYS, values, N_STATE);
}

/* ------------------------------------------------------------------ actions */

/* an action's type, as its interned str */
static PyObject *tag(Src *s) {
    static const enum Word TAGS[] = {W_DRAW, W_TAKE_PILE, W_MELD, W_DISCARD, W_ASK, W_ANSWER};
    Token t;
    if (!string(s, &t))
        return NULL;
    for (size_t i = 0; i < sizeof TAGS / sizeof TAGS[0]; i++)
        if (is(&t, TAGS[i])) {
            Py_INCREF(word[TAGS[i]]);
            return word[TAGS[i]];
        }
    return NULL;
}

enum ActionField { A_TYPE, A_SEAT, A_CARDS, A_RANK, A_CARD, A_ALLOW, N_ACTION };

static int action_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    (void)ctx;
    if (is(key, W_TYPE))
        return READ(A_TYPE, tag(s));
    if (is(key, W_SEAT))
        return READ(A_SEAT, or_none(s, seat));
    if (is(key, W_CARDS))  /* a meld's at least one: checked once the type is known */
        return READ(A_CARDS, plain_cards(s));
    if (is(key, W_RANK))
        return READ(A_RANK, or_none(s, rank));
    if (is(key, W_CARD))
        return READ(A_CARD, card_str(s));
    if (is(key, W_ALLOW))
        return READ(A_ALLOW, boolean(s));
    return 0;
}

/* a tagged action: {"type", "seat", then its own fields}, as msgspec writes the struct */
static PyObject *action(Src *s) {
    PyObject *values[N_ACTION] = {NULL};
    if (!object(s, values, N_ACTION, action_field, NULL))
        return NULL;
    PyObject *type = values[A_TYPE];
    /* the fields each type has, besides type and seat; then which must be given */
    int has = 0, needs = 0;
    if (type == word[W_DRAW] || type == word[W_ASK]) {
        has = 0;
    } else if (type == word[W_TAKE_PILE]) {
        has = 1 << A_CARDS;
    } else if (type == word[W_MELD]) {
        has = (1 << A_CARDS) | (1 << A_RANK);
        needs = 1 << A_CARDS;
    } else if (type == word[W_DISCARD]) {
        has = needs = 1 << A_CARD;
    } else if (type == word[W_ANSWER]) {
        has = needs = 1 << A_ALLOW;
    } else {
        goto fail;  /* no type */
    }
    for (int i = A_CARDS; i < N_ACTION; i++) {
        if (values[i] != NULL && !(has & (1 << i)))
            goto fail;
        if (values[i] == NULL && (needs & (1 << i)))
            goto fail;
    }
    if (type == word[W_MELD] && PyTuple_GET_SIZE(values[A_CARDS]) == 0)
        goto fail;
    if (values[A_SEAT] == NULL) {
        Py_INCREF(Py_None);
        values[A_SEAT] = Py_None;
    }
    enum Word keys[N_ACTION] = {W_TYPE, W_SEAT};
    PyObject *ordered[N_ACTION] = {values[A_TYPE], values[A_SEAT]};
    int n = 2;
    for (int i = A_CARDS; i < N_ACTION; i++) {
        if (!(has & (1 << i)))
            continue;
        if (values[i] == NULL) {  /* the defaults: a take-pile's cards, a meld's rank */
            values[i] = i == A_CARDS ? PyTuple_New(0) : (Py_INCREF(Py_None), Py_None);
            if (values[i] == NULL)
                goto fail;
        }
        keys[n] = i == A_CARDS ? W_CARDS : i == A_RANK ? W_RANK : i == A_CARD ? W_CARD : W_ALLOW;
        ordered[n++] = values[i];
    }
    return dict_of(keys, ordered, n);
fail:
    release(values, N_ACTION);
    return NULL;
}

static PyObject *actions(Src *s) {
    return list(s, 1, MAX_ACTIONS, action);
}

/* ------------------------------------------------------------------ requests */

static int request_field(Src *s, const Token *key, PyObject **values, void *ctx) {
    int kind = *(int *)ctx;
    if (is(key, W_STATE))
        return READ(0, state(s));
    if (kind == 1 && is(key, W_ACTIONS))
        return READ(1, actions(s));
    if (kind == 2 && is(key, W_SEAT))
        return READ(1, seat(s));
    return 0;
}

PyDoc_STRVAR(read_request_doc,
"read_request(body, kind): a canonical request body (bytes) as the data the engine reads, or\n"
"None for any other body. kind: 0 a request of a state alone (validate, legal-actions, score),\n"
"1 of a state and actions (check, apply), 2 of a state and a seat (view).");

static PyObject *read_request(PyObject *self, PyObject *args) {
    (void)self;
    const char *body;
    Py_ssize_t len;
    int kind;
    if (!PyArg_ParseTuple(args, "y#i:read_request", &body, &len, &kind))
        return NULL;
    if (!cards_set) {
        PyErr_SetString(PyExc_RuntimeError, "read_request: set_cards was not called");
        return NULL;
    }
    if (kind < 0 || kind > 2) {
        PyErr_SetString(PyExc_ValueError, "read_request: kind is 0, 1 or 2");
        return NULL;
    }
    Src s = {body, body + len};
    PyObject *values[2] = {NULL, NULL};
    int n = kind == 0 ? 1 : 2;
    if (object(&s, values, 2, request_field, &kind) && peek(&s) == 0 && s.p == s.end
            && values[0] != NULL && (n == 1 || values[1] != NULL)) {
        static const enum Word actions_keys[] = {W_STATE, W_ACTIONS};
        static const enum Word seat_keys[] = {W_STATE, W_SEAT};
        return dict_of(kind == 2 ? seat_keys : actions_keys, values, n);
    }
    release(values, 2);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(set_cards_doc,
"set_cards(codes): the card codes read_request accepts, {code: engine number}; every code two\n"
"ASCII characters, every number in 0..255.");

static PyObject *set_cards(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *codes;
    if (!PyArg_ParseTuple(args, "O!:set_cards", &PyDict_Type, &codes))
        return NULL;
    int16_t numbers[128][128];
    memset(numbers, 0, sizeof numbers);
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(codes, &pos, &key, &value)) {
        const char *text;
        Py_ssize_t n;
        long number;
        if (!PyUnicode_Check(key) || !(text = PyUnicode_AsUTF8AndSize(key, &n)) || n != 2
                || (unsigned char)text[0] >= 128 || (unsigned char)text[1] >= 128
                || !PyLong_Check(value) || (number = PyLong_AsLong(value)) < 0 || number > 255) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_cards: a code of two ASCII characters "
                                "to a number in 0..255");
            return NULL;
        }
        numbers[(unsigned char)text[0]][(unsigned char)text[1]] = (int16_t)(number + 1);
    }
    pos = 0;
    while (PyDict_Next(codes, &pos, &key, &value)) {
        const char *text = PyUnicode_AsUTF8(key);
        PyObject **slot = &card_text[(unsigned char)text[0]][(unsigned char)text[1]];
        Py_INCREF(key);
        Py_XSETREF(*slot, key);
    }
    memcpy(card_number, numbers, sizeof numbers);
    cards_set = 1;
    Py_RETURN_NONE;
}

/* CPython keeps the ints 0 .. 256 as one array of objects: where read_init found number[] to be
   that array, a card number in 0 .. 255 is told by its address, without PyLong_AsLong (about
   30 instructions a card); anything else is read the general way */
static uintptr_t small_first, small_last, small_step;

/* the card number of o, 0 .. size-1; -1 with an IndexError for anything else */
static inline long card_of(PyObject *o, Py_ssize_t size) {
    uintptr_t at = (uintptr_t)o;
    long c;
    if (small_step && at >= small_first && at <= small_last && (at - small_first) % small_step == 0)
        c = (long)((at - small_first) / small_step);
    else if (!PyLong_Check(o) || (c = PyLong_AsLong(o)) < 0)
        c = size;  /* not an int, too large for a long (OverflowError, replaced), negative */
    if (c >= size) {
        PyErr_Clear();
        PyErr_SetString(PyExc_IndexError, "a card number out of range");
        return -1;
    }
    return c;
}

/* adds how often each card is in the tuple cards to tally[0 .. size-1]; 0, or -1 with an
   exception */
static int tally_cards(PyObject *cards, Py_ssize_t size, Py_ssize_t *tally, const char *what) {
    if (!PyTuple_Check(cards)) {
        PyErr_Format(PyExc_TypeError, "%s: a tuple of card numbers is expected", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(cards);
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = card_of(PyTuple_GET_ITEM(cards, i), size);
        if (c < 0)
            return -1;
        tally[c]++;
    }
    return 0;
}

PyDoc_STRVAR(counts_doc,
"counts(size, *hands): how often each card number 0 .. size-1 is in the tuples hands, all\n"
"together; a tuple of size counts (engine.cards.counts_of calls it where it is installed).\n"
"size at most 256; a card that is not an int in 0 .. size-1 is an IndexError.");

static PyObject *counts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs < 1 || !PyLong_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "counts(size: int, *hands: tuple[int, ...])");
        return NULL;
    }
    Py_ssize_t size = PyLong_AsSsize_t(args[0]);
    if (size < 0 || size > 256) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "counts: size in 0..256");
        return NULL;
    }
    Py_ssize_t tally[256];
    memset(tally, 0, (size_t)size * sizeof tally[0]);
    for (Py_ssize_t h = 1; h < nargs; h++)
        if (tally_cards(args[h], size, tally, "counts") < 0)
            return NULL;
    PyObject *out = PyTuple_New(size);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t c = 0; c < size; c++) {
        PyObject *count = tally[c] < 256 ? Py_NewRef(number[tally[c]])
                                         : PyLong_FromSsize_t(tally[c]);
        if (count == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, c, count);
    }
    return out;
}

PyDoc_STRVAR(over_doc,
"over(copies, seen): whether some card is among the cards of seen more often than copies\n"
"allows it (copies[c]: the copies of card number c the deck holds). seen: a list of tuples,\n"
"each ending in a tuple of card numbers (engine.wire's list of the cards a state shows). A\n"
"card that is not an int in 0 .. len(copies)-1 is an IndexError; len(copies) at most 256.");

/* the copies tuple last read, held so that its address names it, and its values */
static PyObject *last_copies;
static Py_ssize_t limits[256];

static PyObject *over(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *copies, *seen;
    if (!PyArg_ParseTuple(args, "O!O!:over", &PyTuple_Type, &copies, &PyList_Type, &seen))
        return NULL;
    Py_ssize_t size = PyTuple_GET_SIZE(copies);
    if (size > 256) {
        PyErr_SetString(PyExc_ValueError, "over: at most 256 copies");
        return NULL;
    }
    if (copies != last_copies) {
        for (Py_ssize_t c = 0; c < size; c++) {
            PyObject *n = PyTuple_GET_ITEM(copies, c);
            if (!PyLong_Check(n) || (limits[c] = PyLong_AsSsize_t(n)) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "over: copies: ints from 0");
                Py_CLEAR(last_copies);
                return NULL;
            }
        }
        Py_INCREF(copies);
        Py_XSETREF(last_copies, copies);
    }
    Py_ssize_t tally[256];
    memset(tally, 0, (size_t)size * sizeof tally[0]);
    Py_ssize_t n = PyList_GET_SIZE(seen);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *where = PyList_GET_ITEM(seen, i);
        if (!PyTuple_Check(where) || PyTuple_GET_SIZE(where) == 0) {
            PyErr_SetString(PyExc_TypeError, "over: seen: tuples ending in a tuple of cards");
            return NULL;
        }
        if (tally_cards(PyTuple_GET_ITEM(where, PyTuple_GET_SIZE(where) - 1), size, tally,
                        "over") < 0)
            return NULL;
    }
    for (Py_ssize_t c = 0; c < size; c++)
        if (tally[c] > limits[c])
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* the interned words; 0, or -1 with an exception */
int read_init(void) {
    for (int i = 0; i < 256; i++)
        if ((number[i] = PyLong_FromLong(i)) == NULL)
            return -1;
    uintptr_t step = (uintptr_t)number[1] - (uintptr_t)number[0];
    int one_array = number[1] > number[0];
    for (int i = 1; one_array && i < 256; i++)
        one_array = (uintptr_t)number[i] == (uintptr_t)number[0] + (uintptr_t)i * step;
    if (one_array) {
        small_first = (uintptr_t)number[0];
        small_last = (uintptr_t)number[255];
        small_step = step;
    }
    for (int w = 0; w < N_WORDS; w++)
        if ((word[w] = PyUnicode_InternFromString(WORDS[w])) == NULL)
            return -1;
    for (const char *r = RANKS; *r; r++) {
        char text[2] = {*r, 0};
        if ((rank_text[(unsigned char)*r] = PyUnicode_InternFromString(text)) == NULL)
            return -1;
    }
    return 0;
}

PyMethodDef read_methods[] = {
    {"read_request", read_request, METH_VARARGS, read_request_doc},
    {"set_cards", set_cards, METH_VARARGS, set_cards_doc},
    {"counts", (PyCFunction)(void (*)(void))counts, METH_FASTCALL, counts_doc},
    {"over", over, METH_VARARGS, over_doc},
    {NULL, NULL, 0, NULL},
};
