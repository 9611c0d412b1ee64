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
    Given a new plant with a fresh id and a fresh name beginning "Sansevieria"

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

    How plantcheck checks: cookie values are credentials. The evidence shows
    them as Cookie: <redacted>, and the curl reproduction reads them from
    $PLANTCHECK_COOKIE (plantcheck proxy does the same).

    Given a plant with a fresh id and the name "Sansevieria trifasciata" has been created
    And a new plant with a fresh id and the name "Sansevieria cylindrica"
    But the request carries no Authorization header, only the cookies the service set
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must @request-state
  Scenario: A byte-for-byte replay of an accepted create without an Authorization header is rejected
    Every request carries the header, however many times the service has
    seen the rest of it. A response cache, a de-duplication table or an
    idempotency store keyed by the request (its body, a hash of it, the
    plant's id) and consulted before the credential answers a request it
    has seen with the answer it kept: 200 without credentials, an
    authentication bypass. The request below is the accepted one again,
    byte for byte, but for its Authorization header.

    Given a plant with a fresh id and the name "Sansevieria masoniana" has been created
    And the request repeats the accepted one byte for byte
    But the request carries no Authorization header
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-UNKNOWN @must @request-state
  Scenario: A byte-for-byte replay of an accepted create with a bearer token the service did not issue is rejected
    A cache or store keyed by the request that a request reaches once it
    carries some bearer credential, before the credential is verified,
    answers the replay with 200 whatever the token.

    Given a plant with a fresh id and the name "Sansevieria zeylanica" has been created
    And the request repeats the accepted one byte for byte
    But the request carries a bearer token the service did not issue
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must @request-state
  Scenario: A replay of an accepted create under its Idempotency-Key without an Authorization header is rejected
    The spec does not name the Idempotency-Key header, so a service may
    ignore it; one that honours it (the IETF's Idempotency-Key draft,
    Stripe's API and the middleware modelled on it) keeps the answer to a
    key and sends it again for a request with that key. Kept before the
    credential is checked, it lets in anyone who repeats the key. The
    accepted create carries a key drawn for the run; the replay, byte for
    byte, carries it too.

    Given a plant with a fresh id and the name "Sansevieria kirkii" has been created under a fresh Idempotency-Key
    And the request repeats the accepted one byte for byte
    But the request carries no Authorization header
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must @request-state
  Scenario: A create with an id already stored, without an Authorization header, is rejected
    Uniqueness of id is "not shown": with the token, a service may take a
    second plant with a stored id (200) or refuse it (400). Without the
    token it must refuse it. An idempotent create that answers a stored
    id as a success (get_or_create, INSERT ... ON CONFLICT DO NOTHING)
    before it checks the credential lets it in.

    Given a plant with a fresh id and the name "Sansevieria ehrenbergii" has been created
    And a new plant with the same id and the name "Sansevieria parva"
    But the request carries no Authorization header
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-MISSING @must @request-state
  Scenario: A create with a name already stored, without an Authorization header, is rejected
    Uniqueness of name is "not shown" too, and a store keyed by the name
    and consulted before the credential answers a plant it knows by name
    with 200, whatever its credentials. The request below has a fresh id
    and the name the service accepted.

    Given a plant with a fresh id and the name "Sansevieria hyacinthoides" has been created
    And a new plant with a fresh id and the name of the accepted one
    But the request carries no Authorization header
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
    own, and APIs that read a token kept in a cookie by a web client.

    How plantcheck checks: the token is shown as <token> in the evidence
    and reproduced from $PLANTCHECK_TOKEN. A token that a query string or a
    JSON string would have to escape cannot be sent so, nor a header the run
    sends of its own (--header), and the verdict says why. A server's access
    log may keep the query string, and with it the token: certify with a
    token issued for testing.

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
    token through in any scheme, or in none. One that checks the prefix
    "Bearer" without its space, or splits the field at any white space
    (Python's header.split()), lets it through after a tab. And a service
    that takes its token under the names other APIs use for it (Token, as
    GitHub's API and Django REST framework's TokenAuthentication do; JWT,
    as passport-jwt can be set to) beside Bearer takes it in a scheme the
    spec does not have.

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
      | after Bearer and a tab       | the request carries the valid token after "Bearer" and a tab, not a space |
      | in the Token scheme          | the request carries the valid token in the "Token" scheme                 |
      | in the JWT scheme            | the request carries the valid token in the "JWT" scheme                   |

  @AUTH-EMPTY @must
  Scenario: The Bearer scheme with an empty credential is rejected with an Error record
    But the request carries the Bearer scheme with an empty credential
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-UNKNOWN @must
  Scenario: A bearer token the service did not issue is rejected with an Error record
    How plantcheck checks: the token is drawn at random for each run, so no
    service can have issued it.

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
    full-width characters to ASCII (width folding, Unicode's NFKC).

    How plantcheck checks: each variant is made from the token given to
    plantcheck and is never printed: the evidence names the variant, and the
    curl reproduction makes it from $PLANTCHECK_TOKEN in POSIX shell. A
    changed character is changed in its top base64 bit, so that a token that
    is base64 or a JWT never changes only in padding bits that decode to the
    same bytes, and a dropped character keeps trailing "=" padding: each
    variant probes its own class (a prefix, a case fold, a cut) and nothing
    else. A variant that cannot be made from the token given (its case, when
    it has no letters; a change past its 72nd byte, when it is shorter; the
    other base64 alphabet, when it spells none of + / - _; the full-width
    form, when its first character is not ASCII) is not run, and the verdict
    says why, once. The bundled reference's tokens, and the self-test's, are
    base64url with a "-" and a "_" in them, so every class is probed in every
    run.

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

    @AUTH-NEAR-MISS @must @near-miss @after-the-token
    Examples: the token with more after it, or before it
      A credential is the whole rest of the field after "Bearer" and its
      spaces: RFC 6750 (section 2.1) writes it "Bearer" 1*SP b64token, and
      b64token has no space, tab, comma or semicolon. A check that takes
      the credential up to the first delimiter (Node's
      header.split(' ')[1], Python's header.split()[1], a regular
      expression such as Bearer (\S+) not anchored at its end, a split of
      the field at its commas) reads the token with anything after it as
      the token; one that takes the field's last word, or what is left
      once every "Bearer " is taken out (Python's replace), reads it with
      a word, or the scheme, before it. Any number of spaces after
      "Bearer" is still the scheme's, and white space at the end of the
      field is not part of its value (RFC 9110, section 5.5): neither is
      sent here as a near miss.
      | variant                                                 |
      | followed by a space and more                            |
      | followed by a tab and more                              |
      | followed by a comma and more                            |
      | followed by a semicolon and more                        |
      | followed by a comma and the Bearer scheme with it again |
      | after a word and a space                                |
      | after the Bearer scheme again                           |

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
