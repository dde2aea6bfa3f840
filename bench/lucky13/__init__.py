"""Lucky 13's engine benchmarks: the whole table against icepool (:mod:`.engine`, with the table in
:mod:`.table` and icepool's side in :mod:`.icepool_check` and :mod:`.icepool_batch`), and "What
should I buy?" for a large sheet (:mod:`.advance`). ``python -m bench`` runs :mod:`.engine`."""
