"""Campaigns: a long attack on one root position (an opening such as {16}, or a reply such as
{16,38}), resumable and distributed (docs/campaign.md; Sicherman, "Theory and Practice of Sylver
Coinage", Integers 2002, sec. 2: the openings 2^a·3^b > 12 are undecided).

- :mod:`~sylver.campaign.tree`: the AND/OR tree: which positions a position's value rests on;
- :mod:`~sylver.campaign.ledger`: the ledger of the tree (SQLite in the campaign's directory);
- :mod:`~sylver.campaign.attempt`: one attempt at a node (a solve with a budget), run by a worker;
- :mod:`~sylver.campaign.run`: the work loop (:class:`Campaign`): what to try next, the executor,
  what the results decide;
- :mod:`~sylver.campaign.proof`: certificates composed from the children's;
- :mod:`~sylver.campaign.report`: the ledger as JSON, table rows and Markdown.
"""

from __future__ import annotations

from sylver.campaign.ledger import Ledger, Node
from sylver.campaign.run import Campaign, Options

__all__ = ["Campaign", "Ledger", "Node", "Options"]
