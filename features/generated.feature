@area-generated
Feature: Generated requests
  Hand-written examples test what their author thought of. These scenarios
  generate request bodies from the NewPlant schema of the OpenAPI document
  itself (through its allOf): valid records with values of every type and
  format, and invalid bodies that each break exactly one rule of the schema.
  A change to the document changes what is generated.

  How plantcheck checks: before a generated body is sent, plantcheck confirms with the document that
  it is what it claims to be (valid or invalid). Each run draws its values
  from the run's seed, so that a seed reproduces them byte for byte. A
  failing case is shrunk to the smallest body that still fails: optional
  properties dropped, strings shortened, numbers moved toward zero.

  How plantcheck checks: every invalid case counts toward the rule of the property it breaks
  (BODY-ID-INTEGER for an id that is a boolean, say), and every accepted
  valid case is judged for its exact echo under CREATE-NAME, CREATE-TAG and
  CREATE-NO-TAG; the members of a valid body come in an order drawn with
  the seed. Ids are fresh, so a service that refuses a reused id passes.

  How plantcheck checks: a default run sends 25 typical, 25 boundary and 25
  invalid bodies (--examples sets how many valid ones). A body the document
  does not judge as it claims is a defect of the suite, reported as an
  error, never as the target's failure. The generator and the shrinker are
  plantcheck's own rather than pgregory.net/rapid: rapid draws and shrinks
  inside its own test driver, with seeds from its own flags, while plantcheck
  generates inside godog steps against a live server, with the run's --seed,
  the same bytes for the same seed, and shrinks by sending again over HTTP.

  @GEN-VALID @must
  Scenario: Every generated valid plant is accepted and echoed
    Given generated valid plants with typical values
    When each is posted to /plants
    Then each is accepted and echoed exactly

  @GEN-BOUNDARY @should
  Scenario: Every generated plant at the edges of its types is accepted and echoed
    A refusal of an edge value is a SHOULD failure of this rule (limits are
    "not shown"); a 200 whose Plant record is not the exact echo is a MUST
    failure of CREATE-NAME, CREATE-TAG or CREATE-NO-TAG.

    Given generated valid plants with boundary values
    When each is posted to /plants
    Then each is accepted and echoed exactly

  @GEN-INVALID @must
  Scenario: Every generated invalid body is rejected with an Error record
    Given generated bodies that each break one rule of the schema
    When each is posted to /plants
    Then each is rejected with an Error record
