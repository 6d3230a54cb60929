set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
break cccl_O3.ptx:59
run
cuda thread (37,0,0)
frame
next
frame
print '%r2'
print '%r1'
next
next
next
next
next
frame
print '%r9'
info locals
delete
break cccl_O3.ptx:97
continue
frame
print '%r23'
print '%r21'
info locals
delete
continue
