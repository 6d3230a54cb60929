set pagination off
set confirm off
set width 0
set print frame-arguments none
set cuda break_on_launch application
run
frame
info source
info line *$pc
info scope numba_main.py:29
info functions poly
info locals
next
next
next
frame
info locals
delete
continue
