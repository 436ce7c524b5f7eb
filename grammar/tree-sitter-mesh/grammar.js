/**
 * @file Tree-sitter grammar for the mesh language.
 *
 * It follows grammar/mesh.ebnf, the syntax meshc parses. Where the two
 * disagree, the EBNF wins and this file is the one to fix.
 *
 * Keywords are contextual. `identifier` is the grammar's `word` token, so
 * tree-sitter's keyword extraction lexes every keyword as an identifier first
 * and only turns it into the keyword where the parser can accept that
 * keyword: an env key may be `mode`, `file` or `secret`, a contract may be
 * called `secret`, a field `from`. A few places accept both a keyword and an
 * identifier at the same point (a contract field named `given`, an env key
 * named `exposed`); there the keyword is also accepted as a name, and one
 * token of look-ahead decides which it is.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

/**
 * A name at a place where some keywords could also start something else:
 * the keywords are accepted too, as an `identifier` node.
 *
 * @param {GrammarSymbols<string>} $
 * @param {...string} keywords
 */
function nameOr($, ...keywords) {
  return choice($.identifier, ...keywords.map((k) => alias(k, $.identifier)));
}

/**
 * Items separated by optional commas, with an optional trailing comma:
 * `[ rule , { [ "," ] , rule } , [ "," ] ]`.
 *
 * @param {Rule} rule
 */
function optionalCommaList(rule) {
  return optional(seq(rule, repeat(seq(optional(','), rule)), optional(',')));
}

module.exports = grammar({
  name: 'mesh',

  word: $ => $.identifier,

  extras: $ => [/\s/, $.doc_comment, $.comment],

  // Where a keyword may also be the name that starts the next entry (a
  // field named `in` after a type, an env key named `exposed` after a
  // value), the parser tries both readings and keeps the one that parses.
  conflicts: $ => [
    [$.field_declaration],
    [$.narrowing],
    [$.env_entry],
    [$.placement],
  ],

  rules: {
    source_file: $ => repeat($._item),

    _item: $ => choice(
      $.contract_definition,
      $.module_definition,
      $.mesh_definition,
      $.seat_declaration,
    ),

    // ---- contracts -------------------------------------------------------

    contract_definition: $ => seq(
      'contract',
      field('name', $.identifier),
      'for',
      field('kind', $.identifier),
      field('body', $.contract_body),
    ),

    contract_body: $ => seq('{', repeat($.field_declaration), '}'),

    field_declaration: $ => seq(
      optional(field('given', 'given')),
      field('name', nameOr($, 'given', 'in', 'len', 'matches')),
      ':',
      field('type', $.type),
      repeat(field('refinement', $.refinement)),
      optional(seq('=', field('default', $._expression))),
    ),

    type: $ => seq(
      optional(field('secret', 'secret')),
      choice($.list_type, alias($.identifier, $.type_identifier)),
    ),

    list_type: $ => seq('list', '<', field('element', $.type), '>'),

    refinement: $ => choice(
      seq('in', choice($.range, $.set)),
      seq('len', $.range),
      seq('matches', field('pattern', $.string)),
    ),

    // A range takes its bounds eagerly: `[1 .. 2]` is one range, not two items.
    range: $ => prec.right(1, seq(
      optional(field('start', $.integer)),
      '..',
      optional(field('end', $.integer)),
    )),

    // The compiler's parser takes any value here and the checker refuses what is not a
    // literal (E0301), so the tree stays whole while that diagnostic is shown.
    set: $ => seq('{', optionalCommaList($._expression), '}'),

    // ---- seats: only in the standard library ------------------------------

    seat_declaration: $ => seq(
      'seat',
      field('name', $.identifier),
      'delivers',
      field('contract', $.identifier),
    ),

    // ---- modules -----------------------------------------------------------

    module_definition: $ => seq(
      'module',
      field('name', $.identifier),
      field('body', $.module_body),
    ),

    module_body: $ => seq('{', repeat($._module_entry), '}'),

    _module_entry: $ => choice(
      $.slug,
      $.requirement,
      $.container,
      $.job,
      $.provides,
    ),

    slug: $ => seq('slug', field('value', $.string)),

    requirement: $ => seq(
      'requires',
      field('name', $.identifier),
      optional(field('optional', '?')),
      ':',
      choice($.operator_requirement, $.contract_requirement),
    ),

    operator_requirement: $ => seq(
      'operator',
      field('type', $.type),
      repeat(field('refinement', $.refinement)),
      optional(seq('=', field('default', $._expression))),
    ),

    contract_requirement: $ => seq(
      field('kind', $.identifier),
      field('contract', $.identifier),
      optional(field('narrowing', $.narrowing_block)),
    ),

    narrowing_block: $ => seq('{', repeat($.narrowing), '}'),

    narrowing: $ => seq(
      field('name', nameOr($, 'in', 'len', 'matches')),
      choice(
        seq('=', field('value', $._expression)),
        repeat1(field('refinement', $.refinement)),
      ),
    ),

    container: $ => seq(
      'container',
      field('name', $.identifier),
      field('body', $.container_body),
    ),

    // `job provision { … }` (LANGUAGE.md §14.1): a container that runs to
    // completion, with a container's body (the checker refuses `publish` and
    // `health` in it).
    job: $ => seq(
      'job',
      field('name', $.identifier),
      field('body', $.container_body),
    ),

    container_body: $ => seq('{', repeat(choice($._container_entry, $.when_block)), '}'),

    // `when mail { … }`: entries kept only when the optional requirement is
    // present. A `when` does not nest.
    when_block: $ => seq(
      'when',
      field('requirement', $.identifier),
      field('body', $.when_body),
    ),

    when_body: $ => seq('{', repeat($._container_entry), '}'),

    _container_entry: $ => choice(
      $.image_entry,
      $.command_entry,
      $.user_entry,
      $.env_block,
      $.mount_entry,
      $.secret_entry,
      $.file_entry,
      $.publish_entry,
      $.image_paths_entry,
      $.health_entry,
      $.after_entry,
    ),

    image_entry: $ => seq('image', field('image', $.string)),

    command_entry: $ => seq('command', field('command', $._expression)),

    // `user 1000` or `user 1000:2000` (LANGUAGE.md §14.2).
    user_entry: $ => seq(
      'user',
      field('user', $._expression),
      optional(seq(token.immediate(':'), field('group', alias($._gid, $.integer)))),
    ),

    // `health ["pg_isready"] every "10s" start "60s" retries 5` (LANGUAGE.md
    // §14.1): the options in any order (the checker refuses one written twice).
    health_entry: $ => seq(
      'health',
      field('test', $._expression),
      repeat(choice(
        seq('every', field('every', $._expression)),
        seq('start', field('start', $._expression)),
        seq('retries', field('retries', $._expression)),
      )),
    ),

    // `after pg provision`: containers and jobs of the module this one starts
    // after.
    after_entry: $ => seq('after', repeat1(field('name', $.identifier))),

    env_block: $ => seq('env', '{', repeat(choice($.env_entry, $.env_when)), '}'),

    // `when mail { SMTP_HOST = mail.host }` inside `env { }`.
    env_when: $ => seq(
      'when',
      field('requirement', $.identifier),
      '{',
      repeat($.env_entry),
      '}',
    ),

    env_entry: $ => seq(
      field('key', nameOr($, 'exposed', 'when')),
      '=',
      field('value', $._expression),
      optional(field('exposed', $.exposed)),
    ),

    exposed: $ => seq('exposed', optional(field('reason', $.string))),

    mount_entry: $ => seq(
      'mount',
      field('source', $._expression),
      '->',
      field('target', $.string),
      optional(field('read_only', 'read_only')),
    ),

    secret_entry: $ => seq(
      'secret',
      field('target', $.string),
      repeat(choice($.owner, seq('mode', field('mode', $.integer)))),
      '=',
      field('value', $._expression),
    ),

    file_entry: $ => seq(
      'file',
      field('target', $.string),
      repeat(choice($.owner, seq('mode', field('mode', $.integer)))),
      '=',
      field('value', $._expression),
    ),

    // `owner 991` or `owner 991:991` (LANGUAGE.md §12.1).
    owner: $ => seq(
      'owner',
      field('uid', $.integer),
      optional(seq(token.immediate(':'), field('gid', alias($._gid, $.integer)))),
    ),

    _gid: _ => token.immediate(/[0-9]+/),

    publish_entry: $ => seq('publish', field('requirement', $.identifier)),

    image_paths_entry: $ => seq('image_paths', field('paths', $._expression)),

    provides: $ => seq(
      'provides',
      field('contract', $.identifier),
      field('body', $.answer_block),
    ),

    answer_block: $ => seq('{', repeat($.answer), '}'),

    answer: $ => seq(
      field('name', $.identifier),
      '=',
      field('value', $._expression),
    ),

    // ---- meshes ------------------------------------------------------------

    mesh_definition: $ => seq(
      'mesh',
      field('name', $.identifier),
      field('body', $.mesh_body),
    ),

    mesh_body: $ => seq('{', repeat($._mesh_entry), '}'),

    _mesh_entry: $ => choice($.node, $.seat, $.assignment),

    node: $ => seq(
      'node',
      field('name', $.identifier),
      field('body', $.node_body),
    ),

    node_body: $ => seq('{', repeat($.node_property), '}'),

    node_property: $ => seq(
      field('name', $.identifier),
      '=',
      field('value', $._expression),
    ),

    seat: $ => seq(
      'seat',
      field('name', $.identifier),
      '=',
      field('instance', $.identifier),
      'on',
      field('node', $.identifier),
    ),

    assignment: $ => seq(
      'assign',
      field('module', $.identifier),
      'to',
      field('node', $.identifier),
      optional(seq('as', field('instance', $.identifier))),
      optional(field('body', $.assignment_body)),
    ),

    assignment_body: $ => seq('{', repeat($._assignment_entry), '}'),

    _assignment_entry: $ => choice(
      $.given_value,
      $.operator_value,
      $.pin,
      $.placement,
      $.keep_network,
      $.genesis,
      $.absence,
    ),

    // `mail absent`: the operator declines an optional requirement's provider.
    absence: $ => seq(
      field('requirement', nameOr($, 'on', 'genesis', 'keep_network')),
      'absent',
    ),

    // `keep_network "legacy"`: a found network the instance's containers stay on (only
    // on a node marked `adopted = true`).
    keep_network: $ => seq('keep_network', field('network', $.string)),

    // `genesis`: the instance is part of the foundation `meshc genesis` raises.
    genesis: _ => 'genesis',

    // `route.public_name = "git.example.org"`: a given field.
    given_value: $ => seq(
      field('requirement', nameOr($, 'on', 'genesis', 'keep_network')),
      '.',
      field('field', $.identifier),
      '=',
      field('value', $._expression),
    ),

    // `workers = 8`, `short = "stg"`: an operator value.
    operator_value: $ => seq(
      field('name', nameOr($, 'on', 'genesis', 'keep_network')),
      '=',
      field('value', $._expression),
    ),

    // `db from postgres on beta`: this provider answers the requirement.
    pin: $ => seq(
      field('requirement', nameOr($, 'on', 'genesis', 'keep_network')),
      'from',
      field('instance', $.identifier),
      'on',
      field('node', $.identifier),
    ),

    // `data at "/mnt/disk2/forge"`, `http at 8080`, `data at "/x" on beta`.
    placement: $ => seq(
      field('requirement', nameOr($, 'on', 'genesis', 'keep_network')),
      'at',
      field('location', choice($.string, $.integer)),
      optional(seq('on', field('node', $.identifier))),
    ),

    // ---- expressions -------------------------------------------------------

    _expression: $ => choice(
      $.string,
      $.integer,
      $.boolean,
      $.reference,
      $.list,
      $.range,
      $.call,
      $.for_expression,
    ),

    // `url(db.password)`, `replace(x, "from", "to")`: one of the language's
    // functions (LANGUAGE.md §12.4); the `(` follows the name directly.
    call: $ => seq(
      field('function', alias($.identifier, $.function_name)),
      token.immediate('('),
      optionalCommaList(field('argument', $._expression)),
      ')',
    ),

    // `for c in consumers route "…"` or `for x in list "…"` (LANGUAGE.md
    // §12.3): the template rendered once per element; `sep ","` before the
    // template is placed between renderings (§14.2).
    for_expression: $ => seq(
      'for',
      field('variable', $.identifier),
      'in',
      field('iterable', choice($.consumers, $.reference)),
      optional(seq('sep', field('separator', $.string))),
      field('template', $.string),
    ),

    consumers: $ => seq('consumers', field('contract', $.identifier)),

    _literal: $ => choice($.string, $.integer, $.boolean),

    boolean: _ => choice('true', 'false'),

    reference: $ => seq(
      field('root', $.identifier),
      repeat(seq('.', field('field', $.identifier))),
    ),

    list: $ => seq('[', optionalCommaList($._expression), ']'),

    // ---- lexical -----------------------------------------------------------

    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*(-[A-Za-z0-9_]+)*/,

    integer: _ => token(seq(
      optional('-'),
      choice(/[0-9]+/, /0o[0-7]+/, /0x[0-9A-Fa-f]+/),
    )),

    string: $ => choice(
      seq(
        '"',
        repeat(choice(
          alias($._string_fragment, $.string_content),
          $.escape_sequence,
          $.interpolation,
        )),
        token.immediate('"'),
      ),
      seq(
        '"""',
        repeat(choice(
          alias($._multiline_string_fragment, $.string_content),
          $.escape_sequence,
          $.interpolation,
        )),
        token.immediate(prec(3, '"""')),
      ),
    ),

    // Text up to the next quote, backslash, `$` or end of line; a lone `$`
    // that does not open an interpolation is text too. The precedence keeps
    // `//` inside a string from being read as a comment.
    _string_fragment: _ => token.immediate(prec(2, choice(/[^"\\$\n]+/, '$'))),

    // In a triple-quoted string, one or two quotes are text; three close it
    // (the closing quotes and `${` outrank text, hence their precedence 3).
    _multiline_string_fragment: _ => token.immediate(prec(2, choice(
      /[^"\\$]+/,
      '$',
      '"',
      '""',
    ))),

    escape_sequence: _ => token.immediate(/\\["\\nt$]/),

    // `${req.field}`, or any expression (`${url(db.password)}`, a loop
    // `${for n in c.given.extensions "…${n}…"}`);
    // `${binding:req.field}` and the other legacy kinds are old forms (W0402)
    // the compiler still reads.
    interpolation: $ => seq(
      token.immediate(prec(3, '${')),
      choice(
        seq(
          optional(seq(
            field('legacy_kind', alias($.identifier, $.legacy_kind)),
            ':',
          )),
          field('reference', $.reference),
        ),
        field('value', choice(
          $.string,
          $.integer,
          $.boolean,
          $.list,
          $.call,
          $.for_expression,
        )),
      ),
      '}',
    ),

    doc_comment: _ => token(prec(1, seq('///', /[^\n]*/))),

    comment: _ => token(seq('//', /[^\n]*/)),
  },
});
