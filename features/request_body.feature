@area-body
Feature: The request body
  The body of POST /plants is a NewPlant record: "It has every field of Plant,
  plus the field id."

    | Field | Type    | Format | Required |
    | id    | integer | int64  | yes      |
    | name  | string  |        | yes      |
    | tag   | string  |        | no       |

  From the specification:
    "The request body must carry id, as an int64 integer, and name, as a
    string." (Rule 3)
    "When the request leads to an error, then the service answers with status
    400 and an Error record." (Rule 2)

  Each rejected request below differs from a valid one in exactly one respect,
  so that the rejection can be laid to that respect alone. A JSON null is not a
  string and not an integer. Member names are matched exactly: "ID" or "Name"
  (which Go's encoding/json matches to struct fields regardless of case) is
  not id or name, so a body with it lacks the field. Limits on the fields are "not shown": values at
  the edges of the written types are expected to be accepted (SHOULD), never
  required.

  Background:
    Given a new plant with a fresh id and a fresh name beginning "Monstera deliciosa"

  Scenario Outline: A body whose <field> is <case> is rejected with an Error record
    But <change>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @BODY-ID-REQUIRED @must
    Examples: id is required
      | field | case                   | change                                     |
      | id    | missing                | the field "id" is left out                 |
      | id    | given only as "ID"     | the field "id" is sent under the key "ID"  |

    @BODY-ID-INTEGER @must
    Examples: id is an integer
      | field | case       | change                                                  |
      | id    | a string   | the field "id" is the fresh id written as a JSON string |
      | id    | a boolean  | the field "id" is the JSON value true                   |
      | id    | null       | the field "id" is the JSON value null                   |
      | id    | an object  | the field "id" is the JSON value {}                     |
      | id    | an array   | the field "id" is the fresh id in a JSON array          |
      | id    | a fraction | the field "id" is the fresh id with the fraction .5     |

    @BODY-ID-INT64 @must
    Examples: id is within int64
      | field | case                     | change                                                  |
      | id    | one above the int64 maximum | the field "id" is the JSON value 9223372036854775808  |
      | id    | one below the int64 minimum | the field "id" is the JSON value -9223372036854775809 |

    @BODY-NAME-REQUIRED @must
    Examples: name is required
      | field | case                   | change                                       |
      | name  | missing                | the field "name" is left out                 |
      | name  | given only as "Name"   | the field "name" is sent under the key "Name" |

    @BODY-NAME-STRING @must
    Examples: name is a string
      | field | case      | change                                         |
      | name  | a number  | the field "name" is a fresh number             |
      | name  | a boolean | the field "name" is the JSON value false       |
      | name  | null      | the field "name" is the JSON value null        |
      | name  | an object | the field "name" is the JSON value {"a":1}     |
      | name  | an array  | the field "name" is an array of one fresh name |

    @BODY-TAG-STRING @must
    Examples: tag, where present, is a string
      | field | case      | change                                      |
      | tag   | a number  | the field "tag" is the JSON value 7         |
      | tag   | a boolean | the field "tag" is the JSON value true      |
      | tag   | null      | the field "tag" is the JSON value null      |
      | tag   | an object | the field "tag" is the JSON value {"a":1}   |
      | tag   | an array  | the field "tag" is the JSON value ["green"] |

  Scenario Outline: A body that is <case> is rejected with an Error record
    Lenient JSON readers take what RFC 8259 does not: a reader that decodes
    the first value and stops, JSON5 or YAML readers, Python's NaN, a
    hand-written number parser. A service that keeps the rule refuses each of
    these bodies: every one is a valid NewPlant but for one departure from
    the JSON grammar.

    But <change>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @BODY-JSON @must
    Examples: the body is JSON
      | case            | change                                        |
      | malformed JSON  | the body is cut short after its first 9 bytes |
      | empty           | the body is empty                             |

    @BODY-JSON @must @lenient-json
    Examples: the body is JSON as RFC 8259 has it, not as a lenient reader takes it
      | case                                  | change                                                      |
      | followed by other bytes               | the body is written with bytes after the object             |
      | followed by a second object           | the body is written with a second object after the first    |
      | commented                             | the body is written with a block comment                    |
      | commented to the end of a line        | the body is written with a line comment                     |
      | single-quoted                         | the body is written with single quotes around its strings   |
      | ended with a comma                    | the body is written with a comma after its last member      |
      | written with bare keys                | the body is written with keys without quotes                |
      | holding NaN                           | the body is written with a member whose value is NaN        |
      | holding Infinity                      | the body is written with a member whose value is Infinity   |
      | holding a number with a leading zero  | the body is written with the id with a leading zero         |
      | holding a number with a plus sign     | the body is written with the id with a plus sign            |
      | holding a number ending in a point    | the body is written with the id with a trailing decimal point |
      | holding a hexadecimal number          | the body is written with the id in hexadecimal              |
      | holding a raw tab in a string         | the body is written with a raw tab inside the name          |
      | holding a raw line break in a string  | the body is written with a raw line break inside the name   |
      | holding an invalid escape             | the body is written with the escape \' inside the name      |
      | cut off before its closing brace      | the body is written with no closing brace                   |

    @BODY-OBJECT @must
    Examples: the body is a JSON object
      | case                | change                                  |
      | an array of plants  | the body is wrapped in a JSON array     |
      | a JSON string       | the body is the JSON text "Monstera"    |
      | a JSON number       | the body is the JSON text 42            |
      | JSON null           | the body is the JSON text null          |

  Scenario Outline: A body whose <field> is <case> is accepted
    But <change>
    When the client posts it to /plants
    Then the response status is 200
    And the plant's name is the name sent

    @BODY-ID-RANGE @should
    Examples: id takes any int64 value
      | field | case              | change                                              |
      | id    | zero              | the field "id" is the JSON value 0                  |
      | id    | negative          | the field "id" is a fresh negative id               |
      | id    | the int64 minimum | the field "id" is the JSON value -9223372036854775808 |
      | id    | the int64 maximum | the field "id" is the JSON value 9223372036854775807  |

    @BODY-NAME-ANY @should
    Examples: name takes any string
      | field | case                       | change                                               |
      | name  | empty                      | the field "name" is the JSON value ""                |
      | name  | 10,000 characters long     | the field "name" is a string of 10000 characters     |
      | name  | accented                   | the field "name" is the JSON value "Crème Brûlée Ñandú" |
      | name  | Chinese                    | the field "name" is the JSON value "龟背竹"           |
      | name  | an emoji                   | the field "name" is the JSON value "🌵 cactus 🌿"     |
      | name  | right-to-left              | the field "name" is the JSON value "نبات الصبار"     |
      | name  | written with JSON escapes  | the field "name" is the JSON value "quote \" tab \t"   |

    @BODY-TAG-ANY @should
    Examples: tag takes any string
      | field | case  | change                                |
      | tag   | empty | the field "tag" is the JSON value ""  |

  @BODY-EXTRA-FIELDS @should
  Scenario: A body with a property the schema does not name is accepted
    The NewPlant schema does not forbid additional properties.

    But the field "colour" is the JSON value "green"
    When the client posts it to /plants
    Then the response status is 200
    And the plant's name is the name sent

  Scenario Outline: What RFC 8259 leaves to the reader is noted: <case>
    RFC 8259 lets a parser ignore a byte order mark, leaves a repeated member
    name and an unpaired surrogate to the implementation ("unpredictable"),
    and asks senders, not readers, for UTF-8. A service may accept or refuse
    such a body: the answer is noted, and no echo is judged.

    But the body is written with <departure>
    When the client posts it to /plants
    Then the answer is noted for information

    @OPEN-JSON-READER @open
    Examples: left to the reader
      | case                      | departure                               |
      | a byte order mark         | a byte order mark before the object     |
      | a repeated member         | the name given twice, with two values   |
      | an unpaired surrogate     | an escaped lone surrogate in the name   |
      | a byte that is not UTF-8  | a byte that is not UTF-8 in the name    |
