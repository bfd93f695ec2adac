"""One evaluation runner for every suite: cases run as independent jobs on a local process pool or a
Ray cluster, results are written as cases finish, and reports and A/B comparisons are made from them."""
