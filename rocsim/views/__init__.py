"""The views: study figures (:mod:`~rocsim.views.figures`), practitioner plots
(:mod:`~rocsim.views.plots`), the reproduction report (:mod:`~rocsim.views.report`) and the
summary of a sweep (:mod:`~rocsim.views.sweep`). They read result tables and objects and write
files; they never select a matplotlib backend."""
