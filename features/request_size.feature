@area-size
Feature: Requests of the sizes real stacks limit
  From the specification: "Limits: not shown. No rate limits, size limits
  or time-outs are shown." A service may therefore refuse a request it
  finds too large. But every answer is still one the document describes:
  200 with a Plant record, or 400 with an Error record (rules 1 and 2).

  Real stacks answer their own limits outside the contract: express's
  100 KiB body limit with 413, nginx's 1 MiB limit with 413 and an HTML
  page, a fixed buffer with 500, a proxy's header limit with 431, a JSON
  reader's nesting limit with 500 (Python's recursion limit of 1,000) or
  with a 400 of its framework's own (Jackson's depth of 1,000 under Spring).

  How plantcheck checks: every run sends bodies past where those stacks'
  limits sit, in one long member and spread over many members: 16 KiB in one member (past a fixed buffer
  of a few KiB), 110 KiB over 1,000 members (past express's 100 KiB), just
  under 1 MiB in one member (past any limit below it), and a member nested
  1,100 levels deep (2 KiB). One more long member, of 205 KiB, is written
  in a character of three bytes: a service that decodes each read of the
  body on its own (Node's body += chunk, each read turned into text alone)
  breaks the characters that fall across its reads, and with reads of any
  power of two in size, two of every three reads end inside a character
  (three reads of 64 KiB: two). Its echo, each character written as a \u
  escape of six bytes (Python's json.dumps does so by default), stays under
  the 1 MiB of an answer plantcheck reads. It stops under 1 MiB: that is nginx's default
  limit, and a front end's default must not fail a deployment by itself;
  and the echo of the largest stays under the 1 MiB of an answer plantcheck
  reads. A larger probe catches every limit a smaller one would; the smaller
  ones say where the limit sits. A failing probe's reproduction makes the
  long name or header with yes, head and tr instead of writing it out. The
  self-test's conformant variants include a server that refuses every body
  over 64 KiB, one that refuses every header line over 4 KiB, and one that
  refuses a body nested over 100 levels (Ruby's JSON.parse default), each
  with 400 and an Error record: each passes.

  The size itself is never judged. Each answer passes when it is 200 with
  the plant echoed exactly, or 400 with an Error record; any other answer
  fails RESPONSE-DOCUMENTED.

  @RESPONSE-DOCUMENTED @must @size
  Scenario Outline: A valid plant <size> is answered as the contract says, accepted or refused
    Given a new plant with a fresh id and the name "Monstera"
    But <change>
    When the client posts it to /plants
    Then the response is a Plant record echoing the plant, or an Error record

    Examples: one long member, many members, a deep member
      | size                                    | change                                                    |
      | of 16 KiB, in its name                  | the field "name" is a string of 16384 characters          |
      | of just under 1 MiB, in its name        | the field "name" is a string of 1040000 characters        |
      | of 205 KiB, in three-byte characters    | the field "name" is "森" written 70000 times               |
      | of about 110 KiB, over 1,000 members    | the body carries 1000 more members of 100 characters each |
      | with a member nested 1,100 levels deep  | the body carries a member nested 1100 levels deep         |

  @HEADER-SIZE @should @size
  Scenario Outline: A valid request with a header of <size> is answered as the contract says
    A header limit belongs to the infrastructure in front of a service (a
    proxy, a load balancer), not to the service. So a long header is judged
    at SHOULD level: it is kept within what every common front end accepts
    (nginx and Apache read 8 KiB a line), and an answer other than 200 with a
    Plant record or 400 with an Error record fails HEADER-SIZE, never a MUST
    rule. A 200 is still judged in full, its echo a MUST.

    How plantcheck checks: the long header is X-Plantcheck-Padding, a name
    no service gives a meaning, of 2 and of 6 KiB; the one judge files a
    refusal of the valid request it pads (a 431, nginx's 400 page) under
    HEADER-SIZE and under no MUST rule.

    Given a new plant with a fresh id and the name "Monstera"
    But the request carries a header of <length> characters that the contract does not name
    When the client posts it to /plants
    Then the response is a Plant record echoing the plant, or an Error record

    Examples:
      | size  | length |
      | 2 KiB | 2048   |
      | 6 KiB | 6144   |
