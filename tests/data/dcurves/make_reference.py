"""Write dca_binary.json: dcurves' decision curves on its own binary data set, with the call
that made them (run with dcurves installed: ``pip install dcurves==1.1.7``; rocsim's tests
read the JSON, without dcurves).

    python tests/data/dcurves/make_reference.py
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from dcurves import dca

HERE = Path(__file__).parent
CALL = (
    "dca(data=pd.read_csv('df_binary.csv'), outcome='cancer', "
    "modelnames=['cancerpredmarker', 'famhistory'], thresholds=np.arange(100) / 100)"
)


def main() -> None:
    data = pd.read_csv(HERE / "df_binary.csv")
    result = dca(
        data=data,
        outcome="cancer",
        modelnames=["cancerpredmarker", "famhistory"],
        thresholds=np.arange(100) / 100,
    )
    columns = ["model", "threshold", "tp_rate", "fp_rate", "net_benefit"]
    table = {
        "dcurves": metadata.version("dcurves"),
        "call": CALL,
        "data": "df_binary.csv (dcurves' own data set, Apache-2.0, dcurves/data/df_binary.csv)",
        "columns": columns,
        "rows": result[columns].values.tolist(),
    }
    # json writes each float as repr() does, which reads back as the same double; a row a line
    rows = ",\n".join(json.dumps(row) for row in table.pop("rows"))
    head = json.dumps(table, indent=1)[:-2]
    (HERE / "dca_binary.json").write_text(f'{head},\n "rows": [\n{rows}\n ]\n}}\n')


if __name__ == "__main__":
    main()
