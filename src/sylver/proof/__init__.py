"""Proofs: certificates built from a solve's answer, their independent verifier, and the rules for
when a certificate proves an answer.

- :mod:`~sylver.proof.certificate`: the formats and the verifier (standard library only: it can be
  copied and run alone, ``python certificate.py proof.json``);
- :mod:`~sylver.proof.build`: the builders (gcd 1: the replies from the solver's tables, written a
  node a line and resumable; g > 1: claims, replay records of g = 2 scans, imports);
- :mod:`~sylver.proof.stored`: when a stored or verified certificate proves an answer, and the
  results store and book on either side of it.

It stands above the solver (a builder searches) and the store; the verifier imports neither.  The
package holds no code of its own (``python -m sylver.proof.certificate`` runs the verifier without
importing it twice).
"""
