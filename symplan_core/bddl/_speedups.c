/* symplan_core.bddl._speedups: what Python cannot make cheaper in parsing a BDDL problem,
 * namely tokenizing, allocating the model's nodes, and the :init section, where most of a
 * BEHAVIOR file's nodes are (canonical_init, at the end of this file).
 *
 * Built at install when a C compiler is present; without it, tokens.py and build.py use their
 * pure-Python versions, which give the same results (tests/bddl/test_speedups.py compares them).
 *
 * split_tokens(text): the token strings of a BDDL text, exactly as tokens.split_tokens gives
 * them: '(' and ')' are tokens, ';' starts a comment that runs to '\n', and tokens are split
 * at the whitespace str.split() uses (Py_UNICODE_ISSPACE). Python needs a regex pass, two
 * str.replace copies and a split for that; this is one scan.
 *
 * Maker(cls, fields): one C call per model node.
 *
 * The model classes are frozen slotted dataclasses. Building one in Python costs a call to
 * object.__new__ plus one slot-setter call per field, and for a typical BEHAVIOR file that is
 * half of all parsing time. A Maker does the same work in a single call: it allocates an
 * instance of its class with the class's own tp_alloc (as object.__new__ does) and stores the
 * given values in the slots named at construction, in order. It never runs __new__, __init__
 * or __setattr__, exactly like the pure-Python path in build.py, which is used when this
 * module was not compiled. The slot offsets are read at run time from the class's member
 * descriptors, so the module knows nothing of the model and never goes stale when a field is
 * added: build.py names the fields.
 *
 * Only member descriptors of object slots (T_OBJECT_EX) are accepted; anything else is a
 * TypeError when the Maker is made, never a memory error later.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MAX_FIELDS 16

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *cls;
    Py_ssize_t nfields;
    Py_ssize_t offsets[MAX_FIELDS];
} Maker;

/* An instance of the Maker's class holding values[0..nfields) (the caller checked the count). */
static PyObject *
maker_make(Maker *self, PyObject *const *values)
{
    PyObject *obj = self->cls->tp_alloc(self->cls, 0);
    if (obj == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->nfields; i++) {
        PyObject **slot = (PyObject **)((char *)obj + self->offsets[i]);
        Py_INCREF(values[i]);
        *slot = values[i];  /* fresh object: the slot is NULL, nothing to release */
    }
    return obj;
}

static PyObject *
maker_vectorcall(PyObject *self_obj, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Maker *self = (Maker *)self_obj;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) {
        PyErr_SetString(PyExc_TypeError, "a Maker takes positional values only");
        return NULL;
    }
    if (nargs != self->nfields) {
        PyErr_Format(PyExc_TypeError, "Maker for %s takes %zd values (%zd given)",
                     self->cls->tp_name, self->nfields, nargs);
        return NULL;
    }
    return maker_make(self, args);
}

static PyObject *
maker_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cls", "fields", NULL};
    PyObject *cls_obj, *fields;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!:Maker", kwlist,
                                     &PyType_Type, &cls_obj, &PyTuple_Type, &fields)) {
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)cls_obj;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    if (n > MAX_FIELDS) {
        PyErr_Format(PyExc_ValueError, "at most %d fields", MAX_FIELDS);
        return NULL;
    }
    if (cls->tp_alloc == NULL || cls->tp_itemsize != 0) {
        PyErr_Format(PyExc_TypeError, "%s is not a plain slotted class", cls->tp_name);
        return NULL;
    }
    Maker *self = (Maker *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = maker_vectorcall;
    Py_INCREF(cls);
    self->cls = cls;
    self->nfields = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PyTuple_GET_ITEM(fields, i);
        /* getattr(cls, name): a plain slot gives its member descriptor, and model._Lazy gives
           the member descriptor it wraps. */
        PyObject *descr = PyObject_GetAttr(cls_obj, name);
        if (descr == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)
            || !PyType_IsSubtype(cls, PyDescr_TYPE(descr))
            || ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX
            || (((PyMemberDescrObject *)descr)->d_member->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "%s.%U is not a writable object slot", cls->tp_name, name);
            Py_DECREF(descr);
            Py_DECREF(self);
            return NULL;
        }
        self->offsets[i] = ((PyMemberDescrObject *)descr)->d_member->offset;
        Py_DECREF(descr);
    }
    return (PyObject *)self;
}

static void
maker_dealloc(Maker *self)
{
    Py_XDECREF(self->cls);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
maker_repr(Maker *self)
{
    return PyUnicode_FromFormat("<Maker for %s, %zd fields>", self->cls->tp_name, self->nfields);
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symplan_core.bddl._speedups.Maker",
    .tp_doc = PyDoc_STR("Maker(cls, fields): a callable that returns an instance of cls with the "
                        "given values in the named slots, without running __init__."),
    .tp_basicsize = sizeof(Maker),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = maker_new,
    .tp_dealloc = (destructor)maker_dealloc,
    .tp_repr = (reprfunc)maker_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
};

/* What a character of a Latin-1 text is to the tokenizer (filled in at module init). */
enum { TOKEN_CHAR = 0, SPACE, PAREN, COMMENT };
static unsigned char latin1_class[256];
static PyObject *open_paren, *close_paren;  /* "(" and ")", made once */

static inline int
is_token_end(Py_UCS4 ch)
{
    return ch == '(' || ch == ')' || ch == ';' || Py_UNICODE_ISSPACE(ch);
}

/* Within one text, equal tokens are one str object: a BEHAVIOR file names each instance and
   predicate several times, so this allocates a third as many strs, and later dict and set
   lookups hash each distinct token once (a str caches its hash). An open-addressing table of
   the tokens made so far, keyed by a hash of their length and first and last eight bytes; the
   list holds the references, the table borrows them. Past TABLE_FILL distinct tokens new ones are simply not
   shared. */
#define TABLE_SIZE 1024
#define TABLE_FILL 768

typedef struct {
    uint64_t hash;
    PyObject *tok;
} TokenEntry;

static inline uint64_t
token_hash(const unsigned char *p, Py_ssize_t len)
{
    uint64_t head = 0, tail = 0;
    if (len >= 8) {
        memcpy(&head, p, 8);
        memcpy(&tail, p + len - 8, 8);
    }
    else {
        memcpy(&head, p, (size_t)len);
    }
    uint64_t h = (head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ (uint64_t)len;
    return h ^ (h >> 29);
}

/* The common case, an ASCII text: a class table per byte, tokens copied straight into new
   ASCII strs. */
static int
split_ascii(PyObject *text, PyObject *tokens)
{
    const unsigned char *data = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    TokenEntry table[TABLE_SIZE];
    int filled = 0;
    memset(table, 0, sizeof(table));
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char cls = latin1_class[data[i]];
        PyObject *tok = NULL;
        if (cls == SPACE) {
            i++;
            continue;
        }
        if (cls == COMMENT) {
            const unsigned char *eol = memchr(data + i, '\n', (size_t)(n - i));
            i = eol == NULL ? n : eol - data;
            continue;
        }
        if (cls == PAREN) {
            tok = data[i] == '(' ? open_paren : close_paren;
            Py_INCREF(tok);
            i++;
        }
        else {
            Py_ssize_t start = i;
            while (i < n && latin1_class[data[i]] == TOKEN_CHAR) {
                i++;
            }
            Py_ssize_t len = i - start;
            uint64_t hash = token_hash(data + start, len);
            size_t slot = (size_t)(hash & (TABLE_SIZE - 1));
            while (table[slot].tok != NULL) {
                PyObject *seen = table[slot].tok;
                if (table[slot].hash == hash && PyUnicode_GET_LENGTH(seen) == len
                    && memcmp(PyUnicode_1BYTE_DATA(seen), data + start, (size_t)len) == 0) {
                    tok = seen;
                    Py_INCREF(tok);
                    break;
                }
                slot = (slot + 1) & (TABLE_SIZE - 1);
            }
            if (tok == NULL) {
                tok = PyUnicode_New(len, 127);
                if (tok != NULL) {
                    memcpy(PyUnicode_1BYTE_DATA(tok), data + start, (size_t)len);
                    if (filled < TABLE_FILL) {  /* slot is the empty one the probe ended on */
                        table[slot].hash = hash;
                        table[slot].tok = tok;
                        filled++;
                    }
                }
            }
        }
        if (tok == NULL || PyList_Append(tokens, tok) < 0) {
            Py_XDECREF(tok);
            return -1;
        }
        Py_DECREF(tok);
    }
    return 0;
}

/* Any other text: the same scan over code points. */
static int
split_unicode(PyObject *text, PyObject *tokens)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        PyObject *tok;
        if (ch == ';') {
            while (i < n && PyUnicode_READ(kind, data, i) != '\n') {
                i++;
            }
            continue;
        }
        if (Py_UNICODE_ISSPACE(ch)) {
            i++;
            continue;
        }
        if (ch == '(' || ch == ')') {
            tok = ch == '(' ? open_paren : close_paren;
            Py_INCREF(tok);
            i++;
        }
        else {
            Py_ssize_t start = i;
            while (i < n && !is_token_end(PyUnicode_READ(kind, data, i))) {
                i++;
            }
            tok = PyUnicode_Substring(text, start, i);
        }
        if (tok == NULL || PyList_Append(tokens, tok) < 0) {
            Py_XDECREF(tok);
            return -1;
        }
        Py_DECREF(tok);
    }
    return 0;
}

static PyObject *
split_tokens(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "split_tokens() needs a str, not %.100s", Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
    PyObject *tokens = PyList_New(0);
    if (tokens == NULL) {
        return NULL;
    }
    int failed = PyUnicode_IS_ASCII(text) ? split_ascii(text, tokens) : split_unicode(text, tokens);
    if (failed) {
        Py_DECREF(tokens);
        return NULL;
    }
    return tokens;
}


/* ---- the :init section of the canonical layout (parser._canonical_init) ---------------- */

static inline int
token_is_char(PyObject *tok, Py_UCS4 ch)
{
    return PyUnicode_Check(tok) && PyUnicode_GET_LENGTH(tok) == 1 && PyUnicode_READ_CHAR(tok, 0) == ch;
}

/* "" (the END padding), "(" or ")": parser.NOT_A_NAME */
static inline int
token_is_not_a_name(PyObject *tok)
{
    return !PyUnicode_Check(tok) || PyUnicode_GET_LENGTH(tok) == 0
           || token_is_char(tok, '(') || token_is_char(tok, ')');
}

/* The index of the first ")" at or after start, or -1. */
static inline Py_ssize_t
find_close(PyObject *toks, Py_ssize_t start, Py_ssize_t n)
{
    for (Py_ssize_t k = start; k < n; k++) {
        if (token_is_char(PyTuple_GET_ITEM(toks, k), ')')) {
            return k;
        }
    }
    return -1;
}

/* canonical_init(toks, src, i, make_atom, make_literal) -> (literals, next index) or None.
 *
 * The same reading, step for step, as parser._canonical_init (a loop of "(pred args)" and
 * "(not (pred args))" up to the closing ")"), and the same nodes, made with the two Makers.
 * None wherever that function raises _NotCanonical, ValueError or IndexError: the caller
 * then reads the text with the general parser, which reports errors with positions. */
static PyObject *
canonical_init(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyTuple_CheckExact(args[0]) || !PyLong_CheckExact(args[2])
        || !Py_IS_TYPE(args[3], &MakerType) || !Py_IS_TYPE(args[4], &MakerType)
        || ((Maker *)args[3])->nfields != 3 || ((Maker *)args[4])->nfields != 2) {
        PyErr_SetString(PyExc_TypeError,
                        "canonical_init(toks: tuple, src, i: int, make_atom: Maker(3), make_literal: Maker(2))");
        return NULL;
    }
    PyObject *toks = args[0], *src = args[1];
    Maker *make_atom = (Maker *)args[3], *make_literal = (Maker *)args[4];
    Py_ssize_t n = PyTuple_GET_SIZE(toks);
    Py_ssize_t i = PyLong_AsSsize_t(args[2]);
    if (i == -1 && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *literals = PyList_New(0);
    if (literals == NULL) {
        return NULL;
    }
#define NOT_CANONICAL do { Py_DECREF(literals); Py_RETURN_NONE; } while (0)
    while (i >= 0 && i + 1 < n && token_is_char(PyTuple_GET_ITEM(toks, i), '(')) {
        PyObject *head = PyTuple_GET_ITEM(toks, i + 1);
        Py_ssize_t at, j;
        int negated = PyUnicode_Check(head) && PyUnicode_CompareWithASCIIString(head, "not") == 0;
        if (negated) {  /* (not (pred args)): the atom starts two tokens in */
            at = i + 2;
            if (at + 1 >= n) {
                NOT_CANONICAL;
            }
            head = PyTuple_GET_ITEM(toks, at + 1);
            j = find_close(toks, at + 2, n);
            if (j < 0 || j + 1 >= n || !token_is_char(PyTuple_GET_ITEM(toks, at), '(')
                || !token_is_char(PyTuple_GET_ITEM(toks, j + 1), ')')) {
                NOT_CANONICAL;
            }
            i = j + 2;
        }
        else {
            at = i;
            j = find_close(toks, at + 2, n);
            if (j < 0) {
                NOT_CANONICAL;
            }
            i = j + 1;
        }
        if (token_is_not_a_name(head)) {
            NOT_CANONICAL;
        }
        for (Py_ssize_t k = at + 2; k < j; k++) {
            if (token_is_char(PyTuple_GET_ITEM(toks, k), '(')) {
                NOT_CANONICAL;
            }
        }
        PyObject *atom_args = PyTuple_GetSlice(toks, at + 2, j);
        PyObject *index = atom_args == NULL ? NULL : PyLong_FromSsize_t(at);
        PyObject *pos = index == NULL ? NULL : PyTuple_Pack(2, src, index);
        PyObject *atom = NULL, *literal = NULL;
        if (pos != NULL) {
            PyObject *atom_values[3] = {head, atom_args, pos};
            atom = maker_make(make_atom, atom_values);
        }
        if (atom != NULL) {
            PyObject *literal_values[2] = {atom, negated ? Py_True : Py_False};
            literal = maker_make(make_literal, literal_values);
        }
        int failed = literal == NULL || PyList_Append(literals, literal) < 0;
        Py_XDECREF(atom_args);
        Py_XDECREF(index);
        Py_XDECREF(pos);
        Py_XDECREF(atom);
        Py_XDECREF(literal);
        if (failed) {
            Py_DECREF(literals);
            return NULL;
        }
    }
    if (i < 0 || i >= n || !token_is_char(PyTuple_GET_ITEM(toks, i), ')')) {
        NOT_CANONICAL;
    }
#undef NOT_CANONICAL
    PyObject *as_tuple = PyList_AsTuple(literals);
    Py_DECREF(literals);
    if (as_tuple == NULL) {
        return NULL;
    }
    return Py_BuildValue("(Nn)", as_tuple, i + 1);
}

static PyMethodDef speedups_methods[] = {
    {"split_tokens", split_tokens, METH_O,
     PyDoc_STR("split_tokens(text) -> list[str]: the tokens of a BDDL text (see tokens.split_tokens).")},
    {"canonical_init", (PyCFunction)(void (*)(void))canonical_init, METH_FASTCALL,
     PyDoc_STR("canonical_init(toks, src, i, make_atom, make_literal) -> (literals, i) or None "
               "(see parser._canonical_init).")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "symplan_core.bddl._speedups",
    .m_doc = "C versions of the BDDL tokenizer and of model-node construction (see tokens.py, build.py).",
    .m_size = -1,
    .m_methods = speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    for (int c = 0; c < 256; c++) {
        latin1_class[c] = c == '(' || c == ')' ? PAREN : c == ';' ? COMMENT
                          : Py_UNICODE_ISSPACE((Py_UCS4)c) ? SPACE : TOKEN_CHAR;
    }
    if (PyType_Ready(&MakerType) < 0) {
        return NULL;
    }
    open_paren = PyUnicode_InternFromString("(");
    close_paren = PyUnicode_InternFromString(")");
    if (open_paren == NULL || close_paren == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&speedups_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&MakerType);
    if (PyModule_AddObject(module, "Maker", (PyObject *)&MakerType) < 0) {
        Py_DECREF(&MakerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
