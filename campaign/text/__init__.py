"""Everything a person reads of the rules' data, worded in the reader's language: the names of
the rules' values (`labels`), the names of a stage's forces, units, people and holdings
(`names`), one sentence per event (`sentences`, `sentences_time`) and the words of the dice
ledger (`ledger`). The engine (`rules`) speaks in codes and parameters; only this package
turns them into words."""
