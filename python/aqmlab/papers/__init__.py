"""Paper reproductions: the framework (`reproduce`: a paper, its parts, running and judging
them; `claims`: a claim and its verdict; `verdicts`: the criteria; `report`: pieces every
report shares), the catalog of papers (`catalog`), and one subpackage per paper (`betared`,
`li2014`, `chen2011`), each with its runs, claims, report and judge."""
