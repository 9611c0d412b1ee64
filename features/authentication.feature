@area-auth
Feature: Authentication
  From the specification:
    "The whole interface is protected by an HTTP bearer scheme."
    "Every request carries the header Authorization with the value Bearer
    followed by a space and <ACCESS_TOKEN>."

  The token is the one the service issued to the client under test;
  plantcheck never prints it. How a token is obtained, its format and its
  lifetime are "not shown", so the suite makes no assumption about them. The
  only error response the document has is 400 with an Error record, so that is
  what a request without valid credentials must get: never 200.

  Each rejected request below is a valid request with only its credentials
  changed: a valid NewPlant body, sent as application/json.

  Background:
    Given a new plant with a fresh id and the name "Sansevieria"

  @AUTH-MISSING @must
  Scenario: A request without an Authorization header is rejected with an Error record
    But the request carries no Authorization header
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must
  Scenario: A request without an Authorization header is rejected even right after an accepted one
    Every request carries the header: a service that opens a session for
    a client once its token was accepted (a cookie, the client's address,
    the connection) and then lets the session stand in for the token lets
    a request in without credentials. The request below follows an
    accepted one at once, from the same address, and sends back every
    cookie the service set; where it set none, it is one more request
    without credentials.

    Given a plant with a fresh id and the name "Sansevieria trifasciata" has been created
    And a new plant with a fresh id and the name "Sansevieria cylindrica"
    But the request carries no Authorization header, only the cookies the service set
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must
  Scenario Outline: A request without an Authorization header is rejected even with the token <where>, as <name>
    The token goes in the Authorization header and nowhere else. RFC 6750
    also lets a token travel as an access_token query parameter or body
    member, and middleware that looks for it there too (in the header, the
    query, then the body) lets in a request that carries no Authorization
    header at all; so do gateways that take a key from a header of their
    own, and APIs that read a token kept in a cookie by a web client. A token that a query string or a JSON string would have to escape
    cannot be sent so, nor a header the run sends of its own (--header),
    and the example says why.

    But the request carries no Authorization header, only the valid token <where>, as <name>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    Examples:
      | where                    | name            |
      | in the query string      | access_token    |
      | in the query string      | token           |
      | in the query string      | api_key         |
      | in the query string      | jwt             |
      | in the body              | access_token    |
      | in a header              | X-Auth-Token    |
      | in a header              | X-Access-Token  |
      | in a header              | X-API-Key       |
      | after Bearer in a header | X-Authorization |
      | in a cookie              | access_token    |
      | in a cookie              | token           |
      | in a cookie              | jwt             |

  Scenario Outline: The right token presented <case> is rejected with an Error record
    A credential check that strips "Bearer " without checking that it was
    there, or that takes the value after its seventh character, lets the
    token through in any scheme, or in none.

    But <presentation>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @AUTH-SCHEME @must
    Examples: the scheme is Bearer
      | case                         | presentation                                                              |
      | in the Basic scheme          | the request carries the valid token in the "Basic" scheme                 |
      | in the Digest scheme         | the request carries the valid token in the "Digest" scheme                |
      | without a scheme             | the request carries the valid token without a scheme                      |
      | right after Bearer, no space | the request carries the valid token right after "Bearer", without a space |

  @AUTH-EMPTY @must
  Scenario: The Bearer scheme with an empty credential is rejected with an Error record
    But the request carries the Bearer scheme with an empty credential
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-UNKNOWN @must
  Scenario: A bearer token the service did not issue is rejected with an Error record
    The token is drawn at random for each run, so no service can have issued it.

    But the request carries a bearer token the service did not issue
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  Scenario Outline: A bearer token near the issued one, <variant>, is rejected with an Error record
    A token is the whole token: a check that compares a prefix, ignores
    letter case, searches for the token inside the value, or hashes it with
    bcrypt (which reads 72 bytes and no more) takes a token that is not the
    one issued. So does a check that normalises the credential before it
    compares it: decodes base64 leniently (padding added or removed, either
    alphabet), percent-decodes it, strips white space from it, or folds
    full-width characters to ASCII (width folding, Unicode's NFKC). Each
    variant is made from the token given to plantcheck and is never printed:
    the evidence names the variant. A variant that cannot be made from the
    token given (its case, when it has no letters; a change past its 72nd
    byte, when it is shorter; the other base64 alphabet, when it spells
    none of + / - _) is not run, and the verdict says why.

    But the request carries the issued token <variant>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @AUTH-NEAR-MISS @must @near-miss
    Examples: the token, and nothing near it
      | variant                                         |
      | with one character appended                     |
      | with one character put before it                |
      | with its last character dropped                 |
      | with its last character changed                 |
      | with the case of its letters changed            |
      | written twice                                   |
      | cut to its first half                           |
      | changed after its 72nd byte                     |
      | with its base64 padding added or removed        |
      | in base64's other alphabet                      |
      | with its first character percent-encoded        |
      | with a space inside it                          |
      | with its first character in its full-width form |

  # AUTH-SCHEME-CASE: the scheme's letter case (a SHOULD).
  Scenario Outline: The issued token under the scheme written <scheme> should be accepted
    HTTP reads an authentication scheme without regard to case: "It uses a
    case-insensitive token to identify the authentication scheme" (RFC 9110,
    section 11.1), and RFC 6750 names the scheme in the same words. So
    "bearer <token>" is the issued credential, and clients send it so (a
    token type copied from an OAuth token response, which RFC 6749 gives as
    "bearer"). But the spec writes the value as "Bearer followed by a space
    and <ACCESS_TOKEN>": a service that takes the scheme only as written
    there keeps the letter of the spec. Its refusal, 400 with an Error
    record, fails this rule at SHOULD level, never a MUST; any other refusal
    is still an undocumented answer (RESPONSE-DOCUMENTED), and a 200 is
    still judged in full (the echo, CREATE-NAME).

    But the request writes the scheme "<scheme>" before the issued token
    When the client posts it to /plants
    Then the response status is 200
    And the response is a Plant record

    @AUTH-SCHEME-CASE @should
    Examples: the scheme in another letter case
      | scheme |
      | bearer |
      | BEARER |
