/* instrument/tree.c - from tree-sitter's tree to the flat node array.
 *
 * At module exec: the grammar's symbol ids mapped to our node kinds (K_*)
 * and the field ids the instrumenter uses (lx_state.symkind, .field).  Per
 * call: the tree flattened into c->nodes in pre-order, each node with its
 * parent, first child and siblings (O(1) navigation, no tree-sitter calls
 * afterwards), and the leaves that make the value model's context tokens.
 */
#include "instrument/instrument.h"

static const struct { const char *name; unsigned char kind; } kind_names[] = {
    {"module", K_MODULE}, {"identifier", K_IDENT}, {"attribute", K_ATTRIBUTE},
    {"call", K_CALL}, {"argument_list", K_ARGLIST}, {"keyword_argument", K_KWARG},
    {"function_definition", K_FUNCDEF}, {"class_definition", K_CLASSDEF},
    {"decorated_definition", K_DECORATED}, {"decorator", K_DECORATOR},
    {"lambda", K_LAMBDA}, {"lambda_parameters", K_LAMBDA_PARAMS},
    {"parameters", K_PARAMS}, {"default_parameter", K_DEFAULT_PARAM},
    {"typed_parameter", K_TYPED_PARAM},
    {"typed_default_parameter", K_TYPED_DEFAULT_PARAM},
    {"list_splat_pattern", K_LIST_SPLAT_PATTERN},
    {"dictionary_splat_pattern", K_DICT_SPLAT_PATTERN},
    {"assignment", K_ASSIGNMENT}, {"augmented_assignment", K_AUGASSIGN},
    {"named_expression", K_NAMED_EXPR}, {"for_statement", K_FOR},
    {"for_in_clause", K_FOR_IN_CLAUSE}, {"while_statement", K_WHILE},
    {"if_statement", K_IF}, {"elif_clause", K_ELIF}, {"else_clause", K_ELSE},
    {"try_statement", K_TRY}, {"except_clause", K_EXCEPT},
    {"except_group_clause", K_EXCEPT_GROUP}, {"finally_clause", K_FINALLY},
    {"with_statement", K_WITH}, {"with_clause", K_WITH_CLAUSE},
    {"with_item", K_WITH_ITEM}, {"as_pattern", K_AS_PATTERN},
    {"as_pattern_target", K_AS_PATTERN_TARGET}, {"match_statement", K_MATCH},
    {"case_clause", K_CASE}, {"case_pattern", K_CASE_PATTERN},
    {"block", K_BLOCK}, {"expression_statement", K_EXPR_STMT},
    {"return_statement", K_RETURN}, {"raise_statement", K_RAISE},
    {"pass_statement", K_PASS}, {"break_statement", K_BREAK},
    {"continue_statement", K_CONTINUE}, {"delete_statement", K_DELETE},
    {"global_statement", K_GLOBAL}, {"nonlocal_statement", K_NONLOCAL},
    {"assert_statement", K_ASSERT}, {"import_statement", K_IMPORT},
    {"import_from_statement", K_IMPORT_FROM},
    {"future_import_statement", K_FUTURE_IMPORT},
    {"aliased_import", K_ALIASED_IMPORT}, {"dotted_name", K_DOTTED_NAME},
    {"relative_import", K_RELATIVE_IMPORT}, {"import_prefix", K_IMPORT_PREFIX},
    {"wildcard_import", K_WILDCARD_IMPORT}, {"print_statement", K_PRINT_STMT},
    {"exec_statement", K_EXEC_STMT}, {"type_alias_statement", K_TYPE_ALIAS_STMT},
    {"comment", K_COMMENT}, {"string", K_STRING}, {"string_start", K_STRING_START},
    {"concatenated_string", K_CONCAT_STRING}, {"interpolation", K_INTERPOLATION},
    {"type", K_TYPE}, {"member_type", K_MEMBER_TYPE},
    {"pattern_list", K_PATTERN_LIST}, {"tuple_pattern", K_TUPLE_PATTERN},
    {"list_pattern", K_LIST_PATTERN}, {"tuple", K_TUPLE}, {"list", K_LIST},
    {"parenthesized_expression", K_PAREN_EXPR}, {"expression_list", K_EXPR_LIST},
    {"list_splat", K_LIST_SPLAT}, {"subscript", K_SUBSCRIPT},
    {"list_comprehension", K_LISTCOMP}, {"set_comprehension", K_SETCOMP},
    {"dictionary_comprehension", K_DICTCOMP},
    {"generator_expression", K_GENEXP}, {"ERROR", K_ERROR},
    {"splat_pattern", K_SPLAT_PATTERN}, {"keyword_pattern", K_KEYWORD_PATTERN},
    {"class_pattern", K_CLASS_PATTERN}, {"comparison_operator", K_COMPARISON},
};

/* -------------------------------------------------------------- flatten */

static uint32_t
add_node(Ctx *c, TSNode tn, uint16_t field, uint32_t parent)
{
    if (GROW(c->nodes, c->cap, c->nnodes + 1) < 0) {
        return NONE_IDX;
    }
    uint32_t i = c->nnodes++;
    Node *n = &c->nodes[i];
    TSPoint sp = ts_node_start_point(tn), ep = ts_node_end_point(tn);
    TSSymbol sym = ts_node_symbol(tn);
    n->start = ts_node_start_byte(tn);
    n->end = ts_node_end_byte(tn);
    n->srow = sp.row;
    n->scol = sp.column;
    n->erow = ep.row;
    n->ecol = ep.column;
    n->parent = parent;
    n->first = n->next = n->prev = NONE_IDX;
    n->scope = -1;
    n->field = field;
    n->named = ts_node_is_named(tn);
    n->kind = sym == (TSSymbol)-1 ? K_ERROR   /* ts_builtin_sym_error */
              : (n->named && sym < c->st->nsymbols) ? c->st->symkind[sym] : K_OTHER;
    if (c->first_error == NONE_IDX && (n->kind == K_ERROR || ts_node_is_missing(tn))) {
        c->first_error = i;
    }
    if (c->forbidden == NONE_IDX &&
        (n->kind == K_PRINT_STMT || n->kind == K_EXEC_STMT || n->kind == K_TYPE_ALIAS_STMT)) {
        c->forbidden = i;
    }
    return i;
}

/* Iterative pre-order walk with one cursor: node i's children follow it. */
int
lxi_flatten(Ctx *c, TSNode root)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    uint32_t *stack = NULL, scap = 0, depth = 0;
    int rc = -1;

    if (add_node(c, root, 0, NONE_IDX) == NONE_IDX || GROW(stack, scap, 1) < 0) {
        goto done;
    }
    stack[0] = 0;
    for (;;) {
        if (ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            if (depth > LX_MAX_DEPTH) {
                PyErr_Format(PyExc_RecursionError,
                             "source nests more than %d levels deep", LX_MAX_DEPTH);
                goto done;
            }
            if (GROW(stack, scap, depth + 1) < 0) {
                goto done;
            }
            uint32_t parent = stack[depth - 1];
            uint32_t i = add_node(c, ts_tree_cursor_current_node(&cur),
                                  ts_tree_cursor_current_field_id(&cur), parent);
            if (i == NONE_IDX) {
                goto done;
            }
            c->nodes[parent].first = i;
            stack[depth] = i;
            continue;
        }
        for (;;) {
            if (depth == 0) {
                rc = 0;
                goto done;
            }
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                uint32_t prev = stack[depth];
                uint32_t i = add_node(c, ts_tree_cursor_current_node(&cur),
                                      ts_tree_cursor_current_field_id(&cur),
                                      stack[depth - 1]);
                if (i == NONE_IDX) {
                    goto done;
                }
                c->nodes[prev].next = i;
                c->nodes[i].prev = prev;
                stack[depth] = i;
                break;
            }
            ts_tree_cursor_goto_parent(&cur);
            depth--;
        }
    }
done:
    ts_tree_cursor_delete(&cur);
    PyMem_Free(stack);
    return rc;
}

/* Context tokens for the value model: leaves in source order, a string
 * literal counting as one token, comments left out. */
int
lxi_collect_leaves(Ctx *c)
{
    uint32_t cap = 0, skip_until = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        Node *n = &c->nodes[i];
        if (n->start < skip_until || n->kind == K_COMMENT) {
            continue;
        }
        if (n->kind == K_STRING || (n->first == NONE_IDX && n->end > n->start)) {
            if (GROW(c->leaves, cap, c->nleaves + 1) < 0) {
                return -1;
            }
            c->leaves[c->nleaves].start = n->start;
            c->leaves[c->nleaves].end = n->end;
            c->nleaves++;
            if (n->kind == K_STRING) {
                skip_until = n->end;
            }
        }
    }
    return 0;
}

static int
load_fields(lx_state *st)
{
    static const struct { const char *name; size_t off; } names[] = {
#define F(x) {#x, offsetof(lx_fields, x)}
        F(left), F(right), F(name), F(value), F(body), F(function), F(arguments),
        F(object), F(attribute), F(alias), F(condition), F(consequence),
        F(alternative), F(parameters), F(superclasses), F(return_type), F(type),
        F(subject), F(module_name), F(definition), F(expression),
        F(format_specifier), F(type_conversion), F(guard), F(type_parameters),
#undef F
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        TSFieldId id = ts_language_field_id_for_name(st->language, names[i].name,
                                                     (uint32_t)strlen(names[i].name));
        if (id == 0) {
            PyErr_Format(PyExc_ImportError, "tree-sitter-python grammar lacks field %s",
                         names[i].name);
            return -1;
        }
        *(uint16_t *)((char *)&st->field + names[i].off) = id;
    }
    return 0;
}

/* At module exec: st->symkind (grammar symbol -> K_*) and st->field. */
int
lxi_grammar_tables(lx_state *st)
{
    st->nsymbols = ts_language_symbol_count(st->language);
    st->symkind = PyMem_Calloc(st->nsymbols ? st->nsymbols : 1, 1);
    if (st->symkind == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (uint32_t s = 0; s < st->nsymbols; s++) {
        const char *name = ts_language_symbol_name(st->language, (TSSymbol)s);
        if (name == NULL || ts_language_symbol_type(st->language, (TSSymbol)s) != TSSymbolTypeRegular) {
            continue;
        }
        for (size_t k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++) {
            if (strcmp(kind_names[k].name, name) == 0) {
                st->symkind[s] = kind_names[k].kind;
                break;
            }
        }
    }
    return load_fields(st);
}
